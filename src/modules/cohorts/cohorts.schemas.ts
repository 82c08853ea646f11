// Wire schemas of the cohorts resource.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, UserBasic } from '../../wire/schemas.ts';

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
export type CohortWire = Static<typeof Cohort>;

/** A cohort as a person's cohorts list it. */
export const PersonCohort = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  count: Type.Integer(),
  is_static: Type.Boolean(),
  created_at: DateTime,
});
export type PersonCohortWire = Static<typeof PersonCohort>;

export const CohortParams = Type.Object({ project_id: Type.String(), id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

const fields = {
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  filters: Type.Optional(Type.Unknown()),
  is_static: Type.Optional(Type.Boolean()),
  distinct_ids: Type.Optional(Type.Array(Type.String())),
};

export const CreateCohortBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 400 }), ...fields });
export const UpdateCohortBody = Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })), ...fields });
export type CohortInput = Static<typeof UpdateCohortBody>;
