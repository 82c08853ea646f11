// Wire schemas of the projects resource.
import { Type, type Static } from 'typebox';
import { DateTime } from '../../wire/schemas.ts';

export const Project = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  organization: Type.String({ format: 'uuid' }),
  name: Type.String(),
  api_token: Type.String(),
  created_at: DateTime,
});
export type ProjectWire = Static<typeof Project>;

export const CreateProjectBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  organization_id: Type.Optional(Type.String({ format: 'uuid' })),
});

export const ProjectIdParams = Type.Object({ id: Type.String() });
