// Wire schemas of the analytical person views: each view's parameters (JSON-encoded in a query
// string where structured, native JSON in a POST body), described once here, and their answers.
import { Type, type TObject, type TSchema } from 'typebox';
import { Person } from '../modules/persons/persons.schemas.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../wire/page.ts';
import { FORMAT_DESCRIPTION, Nullable, PROPERTY_FILTER_EXAMPLE, PROPERTY_FILTERS } from '../wire/schemas.ts';

export type ViewName = 'trends' | 'stickiness' | 'lifecycle' | 'funnel' | 'funnel/correlation' | 'path' | 'retention';

interface ParamDoc {
  description: string;
  /** A value, as a POST body carries it; a query string carries it JSON-encoded unless it is text. */
  example?: unknown;
}

const DATE_FORMS =
  'an ISO date or date-time (`2026-03-01`, `2026-03-01T10:00:00Z`), a relative `-Nh`, `-Nd`, `-Nw`, `-Nm`, `-Nq` or `-Ny` (hours, days, weeks, months, quarters, years ago), ' +
  'or the start or end of such a period (`-1mStart`, `-1wEnd`; `dStart`, `mStart`, `yStart` for the current day, month, year)';
const PAGE_LIMIT = `Persons per page: default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT} (larger is clamped); below 1 is a 400.`;
const ENTITY =
  '`{"id": "<event name>" or null for any event, "order"?, "math"?, "math_property"?, "properties"?: [<property filters>]}`';
const EVENTS_EXAMPLE = [
  { id: '$pageview', type: 'events', order: 0 },
  { id: 'signed up', type: 'events', order: 1 },
];

const COMMON: Record<string, ParamDoc> = {
  date_from: {
    description: `Start of the range: ${DATE_FORMS}, or \`all\` (no start). Default \`-7d\`. Floored to the start of its day (of its hour with \`interval=hour\` or an hours value) unless \`explicit_date=true\`; in the project's timezone.`,
    example: '-14d',
  },
  date_to: {
    description: `End of the range, in the same forms; default now. Raised to the end of its day (hour) unless \`explicit_date=true\`.`,
  },
  explicit_date: {
    description: '`true`: take `date_from` and `date_to` exactly as given, neither floored nor raised.',
  },
  properties: {
    description: `Only events that match. ${PROPERTY_FILTERS} Here \`type\` may also be \`event\`, the event's own properties; a \`person\` filter tests the person's properties as they were at the event. Unparsable JSON: 400 "Properties are unparsable!".`,
    example: JSON.parse(PROPERTY_FILTER_EXAMPLE),
  },
  search: {
    description:
      'Only events of persons whose `email` or `name` property (as of the event) or whose distinct id contains this text, ignoring case.',
  },
  limit: { description: PAGE_LIMIT },
  offset: { description: 'Persons to skip: default 0. `next` carries the next offset.' },
  events: {
    description: `The insight's entities: a JSON list of ${ENTITY}, sorted by \`order\`.`,
    example: EVENTS_EXAMPLE,
  },
  actions: {
    description: 'Not supported (herd stores no actions): a non-empty list is a 400 "Actions are not supported".',
  },
  entity_id: {
    description:
      "The event name of the point's entity (`entityId` is read too). With `events`, picks the entity of that id and `entity_math` (keeping its property filters); without, `entity_type` makes it a bare event entity.",
    example: '$pageview',
  },
  entity_type: { description: '`events` (`type` is read too); `actions` is a 400.', example: 'events' },
  entity_math: {
    description:
      "The math of the entity to pick (default `total`): `total`, `dau`, `unique_session`, `weekly_active` or `monthly_active` (persons active in the 7 or 30 days ending at the point), or `sum`, `avg`, `min`, `max`, `median`, `p75`, `p90`, `p95`, `p99` of the entity's `math_property`.",
  },
  entity_order: {
    description:
      'Picks the entity by its index in `events` (sorted by `order`) instead of by `entity_id` and `entity_math`.',
  },
  interval: { description: "`hour`, `day` (the default), `week` (from Sunday) or `month`, in the project's timezone." },
  format: { description: FORMAT_DESCRIPTION },
};

const FUNNEL: Record<string, ParamDoc> = {
  events: {
    description: `The funnel's steps: a JSON list of ${ENTITY}, in \`order\`. At least one.`,
    example: EVENTS_EXAMPLE,
  },
  funnel_step: {
    description:
      'Which persons: `N` (1-based) those who reached step N or further; `-N` (N ≥ 2) those who reached step N-1 but not step N. Required unless `funnel_custom_steps` is given.',
    example: '2',
  },
  funnel_custom_steps: {
    description: 'A JSON list of step counts: persons whose furthest step is one of them; overrides `funnel_step`.',
    example: [1, 2],
  },
  funnel_step_breakdown: {
    description:
      'Only persons whose breakdown value, taken on their first step-1 event in the range, equals this: `"Chrome"` and `["Chrome"]` alike; with `breakdown_type=cohort`, a cohort id.',
  },
  breakdown: {
    description:
      'The property `funnel_step_breakdown` is compared with: an event or person property name (or a one-item JSON list).',
    example: '$browser',
  },
  breakdown_type: { description: '`event` (the default), `person` or `cohort`.' },
  funnel_window_interval: {
    description: 'The conversion window, counted from the first step: default 14 (in `funnel_window_interval_unit`).',
  },
  funnel_window_interval_unit: { description: '`minute`, `hour`, `day` (the default), `week` or `month`.' },
  funnel_window_days: { description: 'Legacy: the conversion window in days; overrides the two above.' },
  funnel_order_type: {
    description:
      "`ordered` (the default): the steps in order, other events between allowed; `strict`: each step the person's very next event; `unordered`: the steps in any order.",
  },
  funnel_viz_type: {
    description:
      '`steps` (the default) or `time_to_convert`: persons by `funnel_step`; `trends`: the persons of one entrance period (`entrance_period_start`, `drop_off`). `display=ActionsLineGraph` without it also means trends.',
  },
  exclusions: {
    description: `A JSON list of entities ${ENTITY.replace('}`', ', "funnel_from_step", "funnel_to_step"}`')} (0-based steps, spanning at least two): an attempt with such an event between those steps does not count. Unordered funnels take only exclusions spanning every step.`,
    example: [{ id: 'cancelled', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
  },
  interval: {
    description: 'The entrance periods of `funnel_viz_type=trends`: `hour`, `day` (the default), `week` or `month`.',
  },
  entrance_period_start: {
    description:
      'Trends: the entrance period (when the step-1 event happened, by `interval`) whose persons to list. Required with `funnel_viz_type=trends`.',
  },
  drop_off: {
    description:
      'Trends: `false` the persons who converted (reached `funnel_to_step`), `true` those who entered (reached `funnel_from_step`) but did not. Required with `funnel_viz_type=trends`.',
  },
  funnel_from_step: { description: 'Trends: the step (0-based) that counts as entering; default 0.' },
  funnel_to_step: { description: 'Trends: the step (0-based) that counts as converting; default the last.' },
};

const CORRELATION: Record<string, ParamDoc> = {
  funnel_correlation_type: {
    description:
      '`events` (the default) or `event_with_properties`: persons who performed `funnel_correlation_person_entity` during their attempt; `properties`: persons of the funnel matching `funnel_correlation_property_values`.',
  },
  funnel_correlation_person_entity: {
    description:
      'The correlated event, JSON `{"id": "<event name>", "type": "events", "properties"?}`; required for the event types. It counts between the person\'s step-1 event and their conversion (or the end of the window); funnel step events are ignored. On `/persons/funnel/` it turns the request into this view.',
    example: { id: 'viewed pricing', type: 'events' },
  },
  funnel_correlation_property_values: {
    description: 'The correlated properties: a JSON list of property filters; required for `properties`.',
    example: [{ key: 'plan', value: 'pro', type: 'person' }],
  },
  funnel_correlation_person_converted: {
    description:
      '`true`: only persons who completed the funnel; `false`: only those who did not; absent: both. Any letter case.',
  },
  funnel_correlation_person_limit: { description: `${PAGE_LIMIT} This view ignores \`limit\`.` },
  funnel_correlation_person_offset: {
    description: 'Persons to skip (this view ignores `offset`); `next` carries the next one.',
  },
  limit: { description: 'Ignored here: see `funnel_correlation_person_limit`.' },
  offset: { description: 'Ignored here: see `funnel_correlation_person_offset`.' },
};

const PATH: Record<string, ParamDoc> = {
  include_event_types: {
    description:
      'A JSON list of `$pageview` (items are `$current_url` without a trailing slash, its first 400 characters), `$screen` (`$screen_name`, likewise) and `custom_event` (events not starting with `$`); empty or absent: every event, named as those rules say. `hogql` is a 400.',
    example: ['$pageview'],
  },
  include_custom_events: {
    description: 'A JSON list of event names to include beside `include_event_types`.',
    example: ['signed up'],
  },
  exclude_events: {
    description: 'A JSON list of path items (URLs, screen names or event names) to leave out.',
    example: ['https://example.com/login'],
  },
  start_point: { description: 'Paths start at the first occurrence of this item; sessions without it are left out.' },
  end_point: {
    description:
      'Paths end at the first occurrence of this item; sessions without it are left out. Without `start_point`, the last `step_limit` items before it are kept.',
  },
  step_limit: { description: 'How many items a path keeps: default 5, 1 to 100.' },
  path_groupings: {
    description: 'A JSON list of wildcard patterns (`/product/*`): an item matching one becomes the pattern.',
    example: ['/product/*'],
  },
  path_start_key: {
    description:
      'A node `<step>_<item>` (`1_/pricing`): persons whose path went on from it; with `path_end_key`, persons who took the edge between the two.',
    example: '1_https://example.com/pricing',
  },
  path_end_key: { description: 'A node `<step>_<item>` (`2_/signup`): persons whose path reached it.' },
  path_dropoff_key: {
    description:
      'A node `<step>_<item>` where a session ended: persons who dropped off there. The other keys are then ignored.',
  },
  funnel_paths: {
    description:
      "`funnel_path_after_step`, `funnel_path_before_step` or `funnel_path_between_steps`: the paths of the persons of `funnel_filter`'s step, after that step, before it, or between it and the step before.",
  },
  funnel_filter: {
    description:
      'With `funnel_paths`: a funnel (JSON object) with its `events`, `funnel_step` (required) and window, choosing the persons and bounding their events. An ordered or strict funnel.',
    example: { events: EVENTS_EXAMPLE, funnel_step: 2, funnel_window_interval: 14 },
  },
};

const RETENTION: Record<string, ParamDoc> = {
  target_entity: {
    description:
      'The entity that puts a person in a cohort: JSON `{"id": "<event name>", "type": "events"}`; default `$pageview`.',
    example: { id: 'signed up', type: 'events' },
  },
  returning_entity: {
    description: 'The entity that counts as coming back; default the target entity.',
    example: { id: '$pageview', type: 'events' },
  },
  retention_type: {
    description:
      '`retention_recurring` (the default): a person is in the cohort of every period they performed the target event in; `retention_first_time`: only in the period of their first target event ever.',
  },
  period: { description: '`Hour`, `Day` (the default), `Week` or `Month`, capitalized.' },
  total_intervals: { description: 'How many cohort periods the table has: default 11, 1 to 1000.' },
  selected_interval: {
    description:
      'The cohort whose persons to list: its period index, 0 the oldest (the default), below `total_intervals`.',
    example: '0',
  },
  breakdown_values: {
    description: 'A JSON list whose first item is the cohort index; overrides `selected_interval`.',
    example: [2],
  },
  date_to: {
    description: `The last cohort period holds this time (${DATE_FORMS}); default now. The table spans \`total_intervals\` periods back from it.`,
  },
  date_from: { description: 'Ignored: the range follows from `date_to`, `period` and `total_intervals`.' },
  explicit_date: { description: 'Ignored here.' },
};

const VIEW_DOCS: Record<ViewName, Record<string, ParamDoc>> = {
  trends: {
    date_from: {
      description:
        `The point: with a time-series display (the default) the start of the one interval bucket whose persons are listed: \`date_from=-7d\` with \`interval=day\` names the single day seven days ago, so the answer is the persons of that day's events, not of the last seven days (often none). Leave \`date_to\` out (or equal) for that bucket; a later \`date_to\` spans from the bucket to it. ` +
        `Absent, or with \`display=ActionsLineGraphCumulative\` or a single-value display, the whole range (default the last 7 days). Forms: ${DATE_FORMS}, or \`all\`.`,
      example: '2026-03-02',
    },
    date_to: {
      description:
        "The end of the point's window; absent or equal to `date_from`: the end of `date_from`'s bucket. Same forms as `date_from`.",
    },
    events: {
      description: `The graph's entities: a JSON list of ${ENTITY}; \`entity_id\` and \`entity_math\` (or \`entity_order\`) pick the point's.`,
      example: [{ id: '$pageview', type: 'events', order: 0 }],
    },
    display: {
      description:
        '`ActionsLineGraph` (the default) and other time series: the point is one bucket of `interval`; `ActionsLineGraphCumulative`, `ActionsTable`, `ActionsPie`, `ActionsBarValue`, `WorldMap`, `BoldNumber`, `ActionsDonut`, `CalendarHeatmap`: the whole range.',
    },
    breakdown: {
      description:
        'The breakdown property of the point (an event or person property name, or a one-item JSON list), for `breakdown_value`.',
      example: '$browser',
    },
    breakdown_type: { description: '`event`, `person` or `cohort`: what `breakdown_value` is.' },
    breakdown_value: {
      description:
        'The point\'s breakdown value: an exact property value (`""` selects events without the property), or with `breakdown_type=cohort` a cohort id (`all`: no narrowing).',
    },
  },
  stickiness: {
    stickiness_days: {
      description: 'N: the persons active in exactly N distinct intervals of the range (default 0).',
      example: '3',
    },
    events: {
      description: `The graph's entities: a JSON list of ${ENTITY}; \`entity_id\` and \`entity_math\` (or \`entity_order\`) pick the bar's.`,
      example: [{ id: '$pageview', type: 'events', order: 0 }],
    },
  },
  lifecycle: {
    events: {
      description: `A JSON list of ${ENTITY}: the first is the one analysed (without it, \`entity_id\`).`,
      example: [{ id: '$pageview', type: 'events' }],
    },
    entity_id: { description: 'The event analysed when `events` is absent.' },
    target_date: {
      description: 'Required: the period (by `interval`) whose persons to list, as a date.',
      example: '2026-03-02',
    },
    lifecycle_type: {
      description:
        'Required: `new` (first active in this period, the one they were created in), `returning` (active in the period before too), `resurrecting` (active again after a gap, or first active here but created earlier) or `dormant` (active in the period before, not in this one).',
      example: 'returning',
    },
  },
  funnel: FUNNEL,
  'funnel/correlation': { ...FUNNEL, ...CORRELATION },
  path: {
    ...PATH,
    date_from: { description: `${COMMON.date_from.description} Sessions break after 30 minutes without events.` },
  },
  retention: RETENTION,
};

const ENTITY_PARAMS = ['events', 'actions', 'entity_id', 'entity_type', 'entity_math', 'entity_order', 'interval'];
const FUNNEL_PARAMS = ['events', 'actions', ...Object.keys(FUNNEL).filter((name) => name !== 'events')];
const COMMON_PARAMS = ['date_from', 'date_to', 'explicit_date', 'properties', 'search', 'limit', 'offset', 'format'];

/** The documented parameters of each view; others pass through to the view unvalidated. */
export const VIEW_PARAMS: Record<ViewName, string[]> = {
  trends: [...COMMON_PARAMS, ...ENTITY_PARAMS, 'display', 'breakdown', 'breakdown_type', 'breakdown_value'],
  stickiness: [...COMMON_PARAMS, ...ENTITY_PARAMS, 'stickiness_days'],
  lifecycle: [...COMMON_PARAMS, 'events', 'actions', 'entity_id', 'interval', 'target_date', 'lifecycle_type'],
  funnel: [...COMMON_PARAMS, ...new Set(FUNNEL_PARAMS)],
  'funnel/correlation': [
    ...COMMON_PARAMS,
    ...new Set(FUNNEL_PARAMS),
    ...Object.keys(CORRELATION).filter((name) => !COMMON_PARAMS.includes(name)),
  ],
  path: [...COMMON_PARAMS, ...Object.keys(PATH)],
  retention: [...COMMON_PARAMS, ...Object.keys(RETENTION).filter((name) => !COMMON_PARAMS.includes(name))],
};

function docOf(view: ViewName, name: string): ParamDoc {
  const doc = VIEW_DOCS[view][name] ?? COMMON[name];
  if (!doc) throw new Error(`The ${view} view's parameter ${name} has no description`);
  return doc;
}

const queryText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A view's query string: every documented parameter optional text, described, with an example where one helps. */
export function viewQuery(view: ViewName): TObject {
  const entries = VIEW_PARAMS[view].map((name) => {
    const { description, example } = docOf(view, name);
    return [
      name,
      Type.Optional(Type.String({ description, ...(example === undefined ? {} : { examples: [queryText(example)] }) })),
    ];
  });
  return Type.Object(Object.fromEntries(entries), { additionalProperties: true });
}

/** A POST view's body, for the document only (the view merges it over the query itself): the same parameters as native JSON. */
export function viewBody(view: ViewName): TSchema {
  const entries = VIEW_PARAMS[view]
    .filter((name) => name !== 'format')
    .map((name) => {
      const { description, example } = docOf(view, name);
      return [
        name,
        Type.Optional(Type.Unknown({ description, ...(example === undefined ? {} : { examples: [example] }) })),
      ];
    });
  return Type.Object(Object.fromEntries(entries), {
    description:
      "The query parameters as a JSON object, structured values as JSON rather than text; a key here wins over the query string's.",
  });
}

export const PersonsViewResult = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        people: Type.Array(Person, { description: "This page of the persons, in the view's order." }),
        count: Type.Integer({ description: 'How many persons this page holds (not a total).' }),
      }),
      { description: 'One entry.' },
    ),
    next: Nullable(
      Type.String(),
      "The URL of the next page (the request's query with the offset advanced) while the page is full; null after the last. A POST body is not carried.",
    ),
    initial: Type.String({ description: 'The URL of this request.' }),
    missing_persons: Type.Integer({
      description: 'How many persons the events point to that no longer exist (deleted): left out of `people`.',
    }),
    is_cached: Type.Boolean({ description: 'Always false: computed for this request.' }),
    last_refresh: Type.String({ description: 'When it was computed.' }),
  },
  { title: 'PersonsViewResult', description: "A page of the persons behind an insight's point." },
);

export const RetentionResult = Type.Object(
  {
    result: Type.Array(
      Type.Object({
        person: Person,
        appearances: Type.Array(Type.Integer(), {
          description:
            "From the cohort's period on, 1 where the person came back in that period (the first is always 1), else 0.",
        }),
      }),
      { description: "The cohort's persons, most appearances first." },
    ),
    next: Nullable(Type.String(), 'The URL of the next page while the page is full; null after the last.'),
    missing_persons: Type.Integer({
      description: 'How many persons the events point to that no longer exist (deleted): left out.',
    }),
  },
  { title: 'RetentionResult', description: 'A page of the persons of one retention cohort, with when they came back.' },
);
