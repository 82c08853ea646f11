// Wire shapes of roles and role memberships: the Role and Role membership objects and their inputs.
import { Type, type Static } from 'typebox';
import { validationError } from '../../errors.ts';
import { DateTime, DateTimeOf, Nullable, ORGANIZATION_ID, OrganizationMember, UserBasic } from '../../wire/schemas.ts';

/** 21 "can only view", 37 "can always edit" (the platform's OrganizationResourceAccess levels). */
export const CAN_ONLY_VIEW = 21;
export const CAN_ALWAYS_EDIT = 37;
export const ROLE_NAME_MAX_LENGTH = 200;

export const FeatureFlagsAccessLevel = Type.Union([Type.Literal(CAN_ONLY_VIEW), Type.Literal(CAN_ALWAYS_EDIT)], {
  description: `What the role's members may do with feature flags: ${CAN_ONLY_VIEW} can only view, ${CAN_ALWAYS_EDIT} can always edit (the default).`,
});

// The name arrives trimmed (normalizeRoleBody, before schema validation), so blank and length are
// judged on the trimmed text, as DRF's CharField does.
const RoleName = Type.String({
  minLength: 1,
  maxLength: ROLE_NAME_MAX_LENGTH,
  description: `1 to ${ROLE_NAME_MAX_LENGTH} characters after trimming; unique in the organization ignoring case (400 \`unique\`).`,
});

export const CreateRoleBody = Type.Object({
  name: RoleName,
  feature_flags_access_level: Type.Optional(FeatureFlagsAccessLevel),
});
export type CreateRoleInput = Static<typeof CreateRoleBody>;

export const PatchRoleBody = Type.Object({
  name: Type.Optional(RoleName),
  feature_flags_access_level: Type.Optional(FeatureFlagsAccessLevel),
});
export type UpdateRoleInput = Static<typeof PatchRoleBody>;

export const CreateRoleMembershipBody = Type.Object({
  user_uuid: Type.String({
    format: 'uuid',
    description: 'The user to attach: an active member of the organization (`user.uuid`), not yet in the role.',
  }),
});

// A malformed id in the path names nothing: the error plugin answers 404 for params that fail.
const ROLE_ID = Type.String({
  format: 'uuid',
  description: "The role's uuid; anything else, or a role of another organization, is a 404.",
});

export const RoleParams = Type.Object({ organization_id: ORGANIZATION_ID, id: ROLE_ID });

export const RoleMembershipsParams = Type.Object({ organization_id: ORGANIZATION_ID, role_id: ROLE_ID });

export const RoleMembershipParams = Type.Object({
  organization_id: ORGANIZATION_ID,
  role_id: ROLE_ID,
  id: Type.String({ format: 'uuid', description: 'The role membership id (not the user uuid).' }),
});

export const RoleMembership = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The role membership id.' }),
    role_id: Type.String({ format: 'uuid', description: 'The role.' }),
    organization_member: OrganizationMember,
    user: UserBasic,
    joined_at: DateTimeOf('When the user was attached to the role.'),
    updated_at: DateTime,
  },
  {
    title: 'RoleMembership',
    description: 'A member attached to a role; removing the member from the organization removes it.',
  },
);
export type RoleMembershipWire = Static<typeof RoleMembership>;

export const AssociatedFlag = Type.Object(
  { id: Type.Integer(), key: Type.String() },
  { title: 'AssociatedFlag', description: 'A feature flag granted to a role.' },
);

export const Role = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    feature_flags_access_level: Type.Integer({
      description: `${CAN_ONLY_VIEW} can only view, ${CAN_ALWAYS_EDIT} can always edit.`,
    }),
    created_at: DateTimeOf('When it was created.'),
    created_by: Nullable(UserBasic, 'The user whose key created it.'),
    members: Type.Array(RoleMembership, { description: 'Its memberships, by joined_at then id.' }),
    associated_flags: Type.Array(AssociatedFlag, {
      description: 'The feature flags granted to it; empty while nothing grants any.',
    }),
  },
  {
    title: 'Role',
    description: 'A role of an organization: a name, a feature-flag access level and the members attached to it.',
  },
);
export type RoleWire = Static<typeof Role>;

/** Runs before schema validation: trims the name and answers a null name in DRF's words (the level's choices are the input guards'). */
export function normalizeRoleBody(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const fields = body as Record<string, unknown>;
  if (fields.name === null) throw validationError('This field may not be null.', 'name', 'null');
  if (typeof fields.name === 'string') fields.name = fields.name.trim();
}
