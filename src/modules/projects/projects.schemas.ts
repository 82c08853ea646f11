import { Type } from 'typebox';
import { DateTime } from '../../http/schemas/common.ts';

export const Project = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  organization: Type.String({ format: 'uuid' }),
  name: Type.String(),
  api_token: Type.String(),
  created_at: DateTime,
});

export const CreateProjectBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  organization_id: Type.Optional(Type.String({ format: 'uuid' })),
});

export const ProjectParams = Type.Object({ id: Type.String() });
