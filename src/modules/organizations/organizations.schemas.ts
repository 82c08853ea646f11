// Wire schemas of the organizations resource.
import { Type, type Static } from 'typebox';
import { DateTime } from '../../wire/schemas.ts';

export const Organization = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  created_at: DateTime,
  updated_at: DateTime,
  membership_level: Type.Integer(),
});
export type OrganizationWire = Static<typeof Organization>;

export const CreateOrganizationBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64 }),
});

export const OrganizationIdParams = Type.Object({ id: Type.String() });
