// Wire schemas of the events list (`GET /events/`, `GET /events/:uuid/`): the platform's legacy
// event object and its `{next, results}` page.
import { Type, type Static } from 'typebox';
import { FORMAT_QUERY, Nullable, PROJECT_ID, PROPERTY_FILTER_EXAMPLE, PROPERTY_FILTERS } from '../wire/schemas.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../wire/page.ts';

export const CSV_DEFAULT_LIMIT = 3500;
export const CSV_MAX_LIMIT = 50_000;

const DATE =
  'An ISO 8601 time (without an offset: in the project timezone) or a relative one (`-24h`, `-7d`, `-1mStart`, …)';

export const EventListQuery = Type.Object({
  event: Type.Optional(Type.String({ description: 'Only events of this name (exact).' })),
  distinct_id: Type.Optional(Type.String({ description: 'Only events of this distinct id (exact).' })),
  person_id: Type.Optional(
    Type.String({
      description:
        "Only the person's events (its integer id, or its uuid): every event attributed to it, by any of its distinct ids, anonymous ones linked on identify included — as the analytical views count them. An unknown person lists nothing.",
    }),
  ),
  properties: Type.Optional(
    Type.String({
      description: `Events that match. ${PROPERTY_FILTERS.replace("`type` `person` (the default) tests the person's properties", "`type` `event` (the default here) tests the event's properties, `person` the person's properties as the event stored them")}`,
      examples: [PROPERTY_FILTER_EXAMPLE],
    }),
  ),
  after: Type.Optional(Type.String({ description: `${DATE}: only events strictly after it; \`all\` is no bound.` })),
  before: Type.Optional(Type.String({ description: `${DATE}: only events strictly before it.` })),
  limit: Type.Optional(
    Type.String({
      description: `How many events a page holds: default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT} (a larger value is clamped). As CSV: default ${CSV_DEFAULT_LIMIT}, at most ${CSV_MAX_LIMIT}, all in one answer. Below 1 is a 400.`,
    }),
  ),
  offset: Type.Optional(
    Type.String({
      description:
        'Deprecated (as on the platform): events to skip first, at most 50 000, each of them read. `next` continues by `cursor` and drops it.',
    }),
  ),
  cursor: Type.Optional(
    Type.String({
      description:
        'Where the previous page ended (`<timestamp>,<uuid>`): what `next` carries. Build no cursor by hand; follow `next`.',
    }),
  ),
  ...FORMAT_QUERY,
});

export const EventParams = Type.Object({
  project_id: PROJECT_ID,
  uuid: Type.String({ description: "The event's uuid (its `id`); anything else is a 400." }),
});

export const EventPerson = Type.Object(
  {
    is_identified: Type.Boolean({ description: 'Whether the person was identified (`$identify` and the like).' }),
    distinct_ids: Type.Array(Type.String(), { description: "The person's first distinct id, alone." }),
    properties: Type.Record(Type.String(), Type.Unknown(), {
      description: "Of the person's current properties, only `email`, `name` and `username` (those it has).",
    }),
  },
  { title: 'EventPerson', description: 'The person an event is attributed to, in brief.' },
);

export const EventItem = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: "The event's uuid." }),
    distinct_id: Type.String(),
    properties: Type.Record(Type.String(), Type.Unknown(), { description: 'As captured (after normalization).' }),
    event: Type.String({ description: 'Its name (`$pageview`, `signed_up`, …).' }),
    timestamp: Type.String({ format: 'date-time', description: 'When it happened, in UTC.' }),
    person: Nullable(EventPerson, 'The person it is attributed to; null when none (yet).'),
    elements: Type.Array(Type.Unknown(), { description: 'Always empty: herd keeps no autocapture elements.' }),
    elements_chain: Type.String({ description: 'Always empty, as `elements`.' }),
  },
  { title: 'Event', description: 'A captured event, as the events list shows it.' },
);
export type EventWire = Static<typeof EventItem>;

export const EventPage = Type.Object(
  {
    next: Nullable(Type.String(), 'The absolute URL of the next (older) page; null on the last one.'),
    results: Type.Array(EventItem, { description: 'This page, newest first.' }),
  },
  { title: 'EventList', description: 'A page of events, newest first.' },
);

/** What a CSV of events looks like: one row an event, its objects flattened. */
export const EVENTS_CSV_EXAMPLE =
  'distinct_id,elements_chain,event,id,person.distinct_ids.0,person.is_identified,person.properties.email,properties.$browser,timestamp\n' +
  'ada-42,,$pageview,0190a1b2-5e6f-7a8b-9c0d-1e2f3a4b5c6d,ada-42,True,ada@example.com,Firefox,2026-03-01T09:30:00.000Z\n';
