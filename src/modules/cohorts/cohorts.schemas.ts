// Wire schemas of the cohorts resource.
import { Type } from 'typebox';
import { DateTime, Nullable, UserBasic } from '../../http/schemas/common.ts';

export const Cohort = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  description: Type.String(),
  filters: Nullable(Type.Record(Type.String(), Type.Unknown())),
  is_static: Type.Boolean(),
  count: Type.Integer(),
  created_at: DateTime,
  created_by: Nullable(UserBasic),
});

export const CohortParams = Type.Object({ project_id: Type.String(), id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

const fields = {
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  filters: Type.Optional(Type.Unknown()),
  is_static: Type.Optional(Type.Boolean()),
  distinct_ids: Type.Optional(Type.Array(Type.String())),
};

export const CreateCohortBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 400 }), ...fields });
export const UpdateCohortBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })), ...fields });
