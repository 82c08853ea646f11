// Wire schemas of the organizations resource.
import { Type, type Static } from 'typebox';
import { DateTime, DateTimeOf, ORGANIZATION_ID } from '../../wire/schemas.ts';

export const Organization = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String(),
    created_at: DateTimeOf('When it was created.'),
    updated_at: DateTime,
    membership_level: Type.Integer({ description: "The key's user's level in it: 1 member, 8 admin, 15 owner." }),
  },
  { title: 'Organization', description: 'An organization: it owns projects, has members at levels, and roles.' },
);
export type OrganizationWire = Static<typeof Organization>;

export const CreateOrganizationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, description: 'Its name, 1 to 64 characters.' }),
});

export const OrganizationIdParams = Type.Object({ id: ORGANIZATION_ID });
