// Wire schemas of the persons endpoints.
import { Type, type Static } from 'typebox';
import {
  DateTimeOf,
  FORMAT_QUERY,
  Nullable,
  PageQuery,
  PROJECT_ID,
  PROPERTY_FILTER_EXAMPLE,
  PROPERTY_FILTERS,
} from '../../wire/schemas.ts';

const PROPERTIES = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Its properties, as captured (`$set`, `$set_once`, …) or set through the API.',
});

export const Person = Type.Object(
  {
    id: Type.Integer({ description: 'Its integer id: what person paths take (its uuid works too).' }),
    name: Type.String({
      description:
        'A display name: the first non-empty of the properties `email`, `Email`, `$email`, `name`, `Name`, `username`, `Username`, `UserName`; else the first distinct id that does not look anonymous; else the first distinct id; else the id.',
    }),
    distinct_ids: Type.Array(Type.String(), {
      description: 'The ids the SDKs know the person by, in the order they were attached.',
    }),
    properties: PROPERTIES,
    created_at: DateTimeOf('The time of the event that created it.'),
    uuid: Type.String({ format: 'uuid' }),
  },
  { title: 'Person', description: 'A person of a project: whom events are about, known by one or more distinct ids.' },
);

/** What a CSV of persons looks like: one row a person, its lists and objects flattened. */
export const PERSONS_CSV_EXAMPLE =
  'created_at,distinct_ids.0,distinct_ids.1,id,name,properties.email,properties.plan,uuid\n' +
  '2026-03-01T09:30:00.000Z,0190a1b2-anon,ada-42,42,ada@example.com,ada@example.com,pro,0190a1b2-5e6f-7a8b-9c0d-1e2f3a4b5c6d\n';

export const PERSON_ID = Type.String({
  description:
    'The person: its integer `id` or its `uuid`. Anything else is a 400 (to find a person by distinct id, list with `distinct_id=`); an unknown one a 404.',
});
export const PersonParams = Type.Object({ project_id: PROJECT_ID, id: PERSON_ID });

const PersonFilterQuery = Type.Object({
  distinct_id: Type.Optional(
    Type.String({ description: 'Only the person with this distinct id (exact, any of its ids).' }),
  ),
  email: Type.Optional(Type.String({ description: 'Only persons whose `email` property is exactly this.' })),
  search: Type.Optional(
    Type.String({
      description:
        'Persons whose `email` or `name` property contains this (ignoring case), or whose distinct id or uuid is exactly it.',
    }),
  ),
  properties: Type.Optional(
    Type.String({
      description: `Persons whose current properties match. ${PROPERTY_FILTERS}`,
      examples: [PROPERTY_FILTER_EXAMPLE],
    }),
  ),
});
export type PersonListFilters = Static<typeof PersonFilterQuery>;

export const PersonListQuery = Type.Object({
  ...PageQuery.properties,
  ...PersonFilterQuery.properties,
  ...FORMAT_QUERY,
});

export const UpdatePersonBody = Type.Object({
  properties: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'The properties to set (a `$set`); only these keys change. Missing or not an object: a 400 on `properties`.',
    examples: [{ plan: 'team', seats: 12 }],
  }),
});

const DELETE_EVENTS =
  'true: also queue the deletion of its events (run by the weekly batch); false (the default): events stay. `true`/`false` in any letter case; anything else is a 400.';
export const DeletePersonQuery = Type.Object({
  delete_events: Type.Optional(Type.String({ description: DELETE_EVENTS })),
  ...FORMAT_QUERY,
});

// Values may come from the query string (strings, repeated or comma-separated) or the body (lists).
const BULK_IDS = 'Person ids (integers or uuids), at most 100';
const BULK_DISTINCT_IDS = 'Distinct ids, at most 100: every person holding one is deleted';
export const BulkDeleteQuery = Type.Object({
  ids: Type.Optional(
    Type.Array(Type.String(), { description: `${BULK_IDS}: \`ids=1&ids=2\` or \`ids=1,2\`. The body's list wins.` }),
  ),
  distinct_ids: Type.Optional(
    Type.Array(Type.String(), {
      description: `${BULK_DISTINCT_IDS}; repeated or comma-separated. The body's list wins.`,
    }),
  ),
  delete_events: Type.Optional(Type.String({ description: DELETE_EVENTS })),
  // The reference lists the flag as `delete_event`; both spellings are read.
  delete_event: Type.Optional(
    Type.String({ description: 'The same as `delete_events` (the spelling the reference lists).' }),
  ),
  ...FORMAT_QUERY,
});
export const BulkDeleteBody = Type.Object({
  ids: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()]), { description: `${BULK_IDS}.` })),
  distinct_ids: Type.Optional(Type.Array(Type.String(), { description: `${BULK_DISTINCT_IDS}.` })),
  delete_events: Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description: DELETE_EVENTS })),
  delete_event: Type.Optional(
    Type.Union([Type.Boolean(), Type.String()], { description: 'The same as `delete_events`.' }),
  ),
});
export const BulkDeleteResult = Type.Object(
  {
    persons_found: Type.Integer({ description: 'How many persons of the project the ids named.' }),
    persons_deleted: Type.Integer({ description: 'How many of them this request deleted.' }),
    events_queued_for_deletion: Type.Boolean({
      description: 'Whether an event deletion task was queued (`delete_events=true` and a person found).',
    }),
  },
  { title: 'BulkDeleteResult', description: 'What a bulk delete did.' },
);
export type BulkDeleteResultWire = Static<typeof BulkDeleteResult>;

export const SplitBody = Type.Object({
  main_distinct_id: Type.Optional(
    Type.String({
      description: 'The distinct id the person keeps (default its first); one it does not have is a 400.',
    }),
  ),
});
export const Success = Type.Object(
  { success: Type.Boolean({ description: 'Always true: failures answer an error.' }) },
  { title: 'Success', description: 'The action was done.' },
);

const PROPERTY_KEY = 'The property to set';
const PROPERTY_VALUE = 'Its value';
export const UpdatePropertyQuery = Type.Object({
  key: Type.Optional(Type.String({ description: `${PROPERTY_KEY} (or in the body).` })),
  value: Type.Optional(
    Type.String({
      description: `${PROPERTY_VALUE} (or in the body): JSON-decoded when it parses (\`value=5\` sets the number 5, \`value=true\` a boolean), else the text itself.`,
    }),
  ),
  ...FORMAT_QUERY,
});
export const UpdatePropertyBody = Type.Object({
  key: Type.Optional(Type.String({ description: `${PROPERTY_KEY}; wins over the query's.` })),
  value: Type.Optional(Type.Unknown({ description: `${PROPERTY_VALUE}, any JSON value; wins over the query's.` })),
});
const UNSET = 'The property to remove';
export const DeletePropertyQuery = Type.Object({
  $unset: Type.Optional(Type.String({ description: `${UNSET} (or in the body).` })),
  ...FORMAT_QUERY,
});
export const DeletePropertyBody = Type.Object({
  $unset: Type.Optional(Type.String({ description: `${UNSET}; wins over the query's.` })),
});

export const ActivityQuery = Type.Object({ ...PageQuery.properties, ...FORMAT_QUERY });
export const ActivityEntry = Type.Object(
  {
    id: Type.String({ description: 'A time-ordered uuid.' }),
    user: Nullable(
      Type.Object({ first_name: Type.String(), email: Type.String() }),
      'Whose key made the change; null for capture (a merge).',
    ),
    activity: Type.String({
      description:
        '`updated` (PATCH, update_property), `delete_property`, `split_person`, `deleted` (DELETE, each person of a bulk delete) or `merged` (a capture merge into this person).',
    }),
    scope: Type.String({ description: 'Always `Person`.' }),
    item_id: Type.String({ description: "The person's integer id, as text." }),
    detail: Type.Object(
      {
        changes: Type.Unknown({
          description:
            'A list of `{type, action, field, before, after}`: one per changed key for `updated`; null for `deleted`.',
        }),
        name: Type.Unknown({ description: "The person's uuid." }),
      },
      { description: 'What changed.' },
    ),
    created_at: DateTimeOf('When it happened.'),
  },
  { title: 'ActivityEntry', description: 'A change made to a person: through the API, or by a capture merge.' },
);

export const ValuesQuery = Type.Object({
  key: Type.Optional(
    Type.String({ description: 'The person property whose values to list; without it the answer is empty.' }),
  ),
  value: Type.Optional(Type.String({ description: 'Only values containing this text, ignoring case.' })),
  ...FORMAT_QUERY,
});
export const ValueItem = Type.Object(
  {
    name: Type.Unknown({
      description: 'The value as stored: a string, number or boolean (`42` and `"42"` are different values).',
    }),
    count: Type.Integer({ description: 'How many persons have it.' }),
  },
  { title: 'PropertyValue', description: 'A value of a person property and how many persons have it.' },
);
export const ValueList = Type.Array(ValueItem, {
  title: 'PropertyValueList',
  description: 'The 20 most frequent non-empty values among the 100 000 newest persons, by count then value.',
});

export const PersonCohortsQuery = Type.Object({
  person_id: Type.Optional(
    Type.String({
      description: 'The person, by integer id or uuid. Required: without it a 400; an unknown person a 404.',
    }),
  ),
  ...FORMAT_QUERY,
});

const TIMELINE_DATE = 'an ISO date or date-time, or relative `-Nh`, `-Nd`, `-Nw`, `-Nm` (30 days) or `-Ny` (365 days)';
export const TimelineQuery = Type.Object({
  events: Type.Optional(
    Type.String({
      description:
        'Only these events count: a JSON list of event names or of entities `{"id": "<event name>"}` (the `events` of the insight); default every event.',
      examples: [
        JSON.stringify([
          { id: '$pageview', type: 'events' },
          { id: 'signed up', type: 'events' },
        ]),
      ],
    }),
  ),
  properties: Type.Optional(
    Type.String({
      description: `The insight's property filter: its \`person\` keys are the crucial properties, where a change starts a new point (it does not filter events). ${PROPERTY_FILTERS}`,
      examples: [PROPERTY_FILTER_EXAMPLE],
    }),
  ),
  date_from: Type.Optional(
    Type.String({ description: `Start of the range: ${TIMELINE_DATE}; \`all\` or absent: the person's first event.` }),
  ),
  date_to: Type.Optional(
    Type.String({
      description: `End of the range: ${TIMELINE_DATE}; a bare date means its end; default now. Equal bounds widen to one day.`,
    }),
  ),
  breakdown: Type.Optional(Type.String({ description: 'With `breakdown_type=person`, one more crucial property.' })),
  breakdown_type: Type.Optional(
    Type.String({ description: '`person` makes `breakdown` a crucial property; `event` (the default) does not.' }),
  ),
  ...FORMAT_QUERY,
});
export type TimelineQueryInput = Static<typeof TimelineQuery>;

export const TimelinePoint = Type.Object(
  {
    timestamp: DateTimeOf('The first event of the point.'),
    properties: Type.Record(Type.String(), Type.Unknown(), {
      description: "The person's properties as of that event.",
    }),
    relevant_event_count: Type.Integer({
      description: 'How many of the counted events fall in this point, up to the next.',
    }),
  },
  {
    title: 'TimelinePoint',
    description: "A stretch of the person's events over which the crucial properties kept their values.",
  },
);
export const PropertiesTimeline = Type.Object(
  {
    points: Type.Array(TimelinePoint, {
      description: 'The first event in the range, then every event where a crucial property changed.',
    }),
    crucial_property_keys: Type.Array(Type.String(), {
      description: 'The person properties watched for changes, sorted.',
    }),
    effective_date_from: DateTimeOf('The start of the range actually used.'),
    effective_date_to: DateTimeOf('The end of the range actually used.'),
  },
  { title: 'PropertiesTimeline', description: "A person's properties over the range, as the events recorded them." },
);
