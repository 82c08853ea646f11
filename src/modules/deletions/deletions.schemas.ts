// Wire shapes of GET /api/projects/:project_id/persons/deletion_status/.
import { Type, type Static } from 'typebox';
import { validationError } from '../../errors.ts';
import { DateTimeOf, Nullable, PageQuery } from '../../wire/schemas.ts';

export const DELETION_STATUSES = ['pending', 'completed', 'cancelled'] as const;
export type DeletionStatus = (typeof DELETION_STATUSES)[number];

export const DeletionStatusQuery = Type.Object({
  ...PageQuery.properties,
  // Checked by statusFilterOf, so the 400 names the value given (Ajv is not run verbose here).
  status: Type.Optional(
    Type.String({ description: '`pending` (not run yet), `completed`, `cancelled`, or `all` (the default).' }),
  ),
  person_uuid: Type.Optional(
    Type.String({
      format: 'uuid',
      description: 'Only the tasks of the person with this uuid (which may be deleted already).',
    }),
  ),
});
export type DeletionStatusQueryWire = Static<typeof DeletionStatusQuery>;

/** Who asked for a task: the user of the key that asked. */
export const CreatedBy = (description: string) =>
  Nullable(Type.Object({ first_name: Type.String(), email: Type.String() }), description);

export const StatusOf = Type.Enum([...DELETION_STATUSES], {
  description:
    '`pending` until the deletion batch has run it, then `completed`; `cancelled` when cancelled before it ran.',
});

export const DeletionTask = Type.Object(
  {
    id: Type.Integer(),
    kind: Type.Enum(['person', 'person_events'], {
      description:
        '`person`: the events of a deleted person (`delete_events=true`); `person_events`: the events of a person who stays (`delete_events/`).',
    }),
    person_id: Type.Integer({ description: "The person's integer id." }),
    person_uuid: Type.String({ format: 'uuid', description: "The person's uuid." }),
    distinct_ids: Type.Array(Type.String(), {
      description: 'The distinct ids the person had when it was asked: their events are deleted.',
    }),
    status: StatusOf,
    created_at: DateTimeOf('When the deletion was asked for.'),
    delete_verified_at: Nullable(
      Type.String({ format: 'date-time' }),
      'When the batch deleted the events; null while pending.',
    ),
    cancelled_at: Nullable(Type.String({ format: 'date-time' }), 'When it was cancelled; null unless cancelled.'),
    events_deleted: Type.Integer({ description: 'How many events the batch deleted.' }),
    created_by: CreatedBy("Who asked for it (the key's user)."),
  },
  {
    title: 'DeletionTask',
    description:
      "A queued deletion of a person's events: of a deleted person (asked with `delete_events=true`) or of a person who stays (`delete_events/`), run by the weekly batch (Sunday 05:00 UTC by default).",
  },
);
export type DeletionTaskWire = Static<typeof DeletionTask>;

export function statusFilterOf(value: string | undefined): DeletionStatus | undefined {
  // The platform's `all` is the same as no filter.
  if (value === undefined || value === 'all') return undefined;
  if ((DELETION_STATUSES as readonly string[]).includes(value)) return value as DeletionStatus;
  throw validationError(`"${value}" is not a valid choice.`, 'status', 'invalid_choice');
}
