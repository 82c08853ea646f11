// Wire shapes of roles and role memberships: the Role and Role membership objects and their inputs.
import { Type, type Static } from 'typebox';
import { validationError } from '../../errors.ts';
import { DateTime, OrganizationMember, UserBasic } from '../../wire/schemas.ts';

/** 21 "can only view", 37 "can always edit" (the platform's OrganizationResourceAccess levels). */
export const CAN_ONLY_VIEW = 21;
export const CAN_ALWAYS_EDIT = 37;
export const ROLE_NAME_MAX_LENGTH = 200;

export const FeatureFlagsAccessLevel = Type.Union([Type.Literal(CAN_ONLY_VIEW), Type.Literal(CAN_ALWAYS_EDIT)]);

// The name arrives trimmed (normalizeRoleBody, before schema validation), so blank and length are
// judged on the trimmed text, as DRF's CharField does.
const RoleName = Type.String({ minLength: 1, maxLength: ROLE_NAME_MAX_LENGTH });

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
  user_uuid: Type.String({ format: 'uuid' }),
});

// A malformed id in the path names nothing: the error plugin answers 404 for params that fail.
export const RoleParams = Type.Object({
  organization_id: Type.String(),
  id: Type.String({ format: 'uuid' }),
});

export const RoleMembershipsParams = Type.Object({
  organization_id: Type.String(),
  role_id: Type.String({ format: 'uuid' }),
});

export const RoleMembershipParams = Type.Object({
  organization_id: Type.String(),
  role_id: Type.String({ format: 'uuid' }),
  id: Type.String({ format: 'uuid' }),
});

export const RoleMembership = Type.Object({
  id: Type.String({ format: 'uuid' }),
  role_id: Type.String({ format: 'uuid' }),
  organization_member: OrganizationMember,
  user: UserBasic,
  joined_at: DateTime,
  updated_at: DateTime,
});
export type RoleMembershipWire = Static<typeof RoleMembership>;

export const AssociatedFlag = Type.Object({ id: Type.Integer(), key: Type.String() });

export const Role = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  feature_flags_access_level: Type.Integer(),
  created_at: DateTime,
  created_by: Type.Union([UserBasic, Type.Null()]),
  members: Type.Array(RoleMembership),
  associated_flags: Type.Array(AssociatedFlag),
});
export type RoleWire = Static<typeof Role>;

/** Runs before schema validation: trims the name and answers a null name in DRF's words (the level's choices are the input guards'). */
export function normalizeRoleBody(body: unknown): void {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return;
  const fields = body as Record<string, unknown>;
  if (fields.name === null) throw validationError('This field may not be null.', 'name', 'null');
  if (typeof fields.name === 'string') fields.name = fields.name.trim();
}
