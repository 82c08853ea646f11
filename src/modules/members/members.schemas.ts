// Wire schemas of organization members.
import { Type, type Static } from 'typebox';
import type { OrganizationMember } from '../../wire/schemas.ts';

export const MEMBERSHIP_LEVELS = [1, 8, 15] as const;

const LEVEL_NAMES = { 1: 'member', 8: 'admin', 15: 'owner' } as const;

// The titles name each choice in the refusal of any other value (and in the API document).
export const MembershipLevel = Type.Union(MEMBERSHIP_LEVELS.map((level) => Type.Literal(level, { title: LEVEL_NAMES[level] })));

export const MemberParams = Type.Object({ organization_id: Type.String(), user_uuid: Type.String() });

export const AddMemberBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  first_name: Type.Optional(Type.String({ maxLength: 150 })),
  last_name: Type.Optional(Type.String({ maxLength: 150 })),
  level: Type.Optional(MembershipLevel),
});

export const UpdateMemberBody = Type.Object({ level: MembershipLevel });

export type OrganizationMemberWire = Static<typeof OrganizationMember>;
