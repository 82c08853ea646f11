// Wire schemas of organization members.
import { Type, type Static } from 'typebox';
import { ORGANIZATION_ID, type OrganizationMember } from '../../wire/schemas.ts';

export const MEMBERSHIP_LEVELS = [1, 8, 15] as const;

const LEVEL_NAMES = { 1: 'member', 8: 'admin', 15: 'owner' } as const;

// The titles name each choice in the refusal of any other value (and in the API document).
export const MembershipLevel = Type.Union(
  MEMBERSHIP_LEVELS.map((level) => Type.Literal(level, { title: LEVEL_NAMES[level] })),
  {
    description:
      "1 member, 8 admin, 15 owner. Only an owner makes an owner or changes an owner's level; nobody changes their own.",
  },
);

export const MemberParams = Type.Object({
  organization_id: ORGANIZATION_ID,
  user_uuid: Type.String({ description: "The member's user uuid (`user.uuid` of the member), not the membership id." }),
});

export const AddMemberBody = Type.Object({
  email: Type.String({
    format: 'email',
    maxLength: 254,
    description: 'The user to add, by e-mail (ignoring case); a new user is created when there is none.',
  }),
  first_name: Type.Optional(Type.String({ maxLength: 150, description: 'For a new user.' })),
  last_name: Type.Optional(Type.String({ maxLength: 150, description: 'For a new user.' })),
  level: Type.Optional(MembershipLevel),
});

export const UpdateMemberBody = Type.Object({ level: MembershipLevel });

export type OrganizationMemberWire = Static<typeof OrganizationMember>;
