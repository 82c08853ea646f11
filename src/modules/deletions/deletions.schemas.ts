// Wire shapes of GET /api/projects/:project_id/persons/deletion_status/.
import { Type, type Static } from 'typebox';
import { validationError } from '../../errors.ts';
import { DateTime, Nullable, PageQuery } from '../../wire/schemas.ts';

export const DELETION_STATUSES = ['pending', 'completed'] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

export const DeletionStatusQuery = Type.Object({
  ...PageQuery.properties,
  // Checked by statusFilterOf, so the 400 names the value given (Ajv is not run verbose here).
  status: Type.Optional(Type.String({ description: 'pending, completed or all (the default)' })),
  person_uuid: Type.Optional(Type.String({ format: 'uuid' })),
});
export type DeletionStatusQueryWire = Static<typeof DeletionStatusQuery>;


export const DeletionTask = Type.Object({
  id: Type.Integer(),
  person_id: Type.Integer(),
  person_uuid: Type.String({ format: 'uuid' }),
  distinct_ids: Type.Array(Type.String()),
  status: Type.Enum([...DELETION_STATUSES]),
  created_at: DateTime,
  delete_verified_at: Nullable(DateTime),
  events_deleted: Type.Integer(),
  created_by: Nullable(Type.Object({ first_name: Type.String(), email: Type.String() })),
});
export type DeletionTaskWire = Static<typeof DeletionTask>;

export function statusFilterOf(value: string | undefined): DeletionStatus | undefined {
  // The platform's `all` is the same as no filter.
  if (value === undefined || value === 'all') return undefined;
  if ((DELETION_STATUSES as readonly string[]).includes(value)) return value as DeletionStatus;
  throw validationError(`"${value}" is not a valid choice.`, 'status', 'invalid_choice');
}
