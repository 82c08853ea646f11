// Wire shapes of /api/projects/:project_id/event_deletions/ and of a person's delete_events/.
import { Type, type Static } from 'typebox';
import { DateTimeOf, Nullable, PageQuery, PROJECT_ID, PROPERTY_FILTERS } from '../../wire/schemas.ts';
import { CreatedBy, StatusOf } from './deletions.schemas.ts';

export const MAX_SCRUB_KEYS = 100;

export const EventDeletionBody = Type.Object({
  after: Type.String({
    minLength: 1,
    description: 'The start of the range (ISO 8601; without an offset it is UTC), inclusive, by event timestamp.',
  }),
  before: Type.String({ minLength: 1, description: 'The end of the range, exclusive; later than `after`.' }),
  event: Type.Optional(
    Type.String({ minLength: 1, maxLength: 400, description: 'Only the events of this name (e.g. `$pageview`).' }),
  ),
  properties: Type.Optional(
    Type.Unknown({
      description: `Only the events matching these filters; \`type: "event"\` tests the event's properties, \`person\` the person properties stored on the event. ${PROPERTY_FILTERS}`,
    }),
  ),
  scrub_properties: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 400 }), {
      minItems: 1,
      maxItems: MAX_SCRUB_KEYS,
      description:
        'Keep the matching events but remove these keys from their properties and from the person properties stored on them (instead of deleting the events).',
    }),
  ),
});
export type EventDeletionBodyWire = Static<typeof EventDeletionBody>;

export const EventDeletionQuery = Type.Object({
  ...PageQuery.properties,
  status: Type.Optional(Type.String({ description: '`pending`, `completed`, `cancelled`, or `all` (the default).' })),
});

export const EventDeletionParams = Type.Object({
  project_id: PROJECT_ID,
  id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'The task id.' }),
});

export const EventDeletion = Type.Object(
  {
    id: Type.Integer(),
    kind: Type.Enum(['events', 'scrub', 'retention'], {
      description:
        "`events`: delete the matching events; `scrub`: remove keys from them; `retention`: the project's retention period, queued by the batch itself (`created_by` null).",
    }),
    after: Nullable(Type.String({ format: 'date-time' }), 'The start of the range (inclusive); null for retention.'),
    before: DateTimeOf('The end of the range (exclusive).'),
    event: Nullable(Type.String(), 'The event name it is limited to, if any.'),
    properties: Nullable(Type.Unknown(), 'The property filters as given, if any.'),
    scrub_properties: Nullable(Type.Array(Type.String()), 'The keys a scrub removes; null when it deletes.'),
    status: StatusOf,
    created_at: DateTimeOf('When it was asked for.'),
    started_at: Nullable(Type.String({ format: 'date-time' }), 'When the batch began it.'),
    completed_at: Nullable(Type.String({ format: 'date-time' }), 'When the batch finished it.'),
    cancelled_at: Nullable(Type.String({ format: 'date-time' }), 'When it was cancelled.'),
    events_deleted: Type.Integer({ description: 'How many events it deleted.' }),
    events_scrubbed: Type.Integer({ description: 'How many events it scrubbed.' }),
    created_by: CreatedBy("Who asked for it (the key's user); null for retention."),
  },
  {
    title: 'EventDeletion',
    description:
      'A queued deletion (or scrub) of the events of a time range, run by the deletion batch (Sunday 05:00 UTC by default, `DELETION_SCHEDULE`).',
  },
);
export type EventDeletionWire = Static<typeof EventDeletion>;
