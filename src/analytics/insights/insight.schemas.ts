// Wire schemas of the insight endpoints: their parameters (the persons views' filter parameters,
// JSON-encoded in a query string, native JSON in a body) and their answers, named for OpenAPI.
import { Type } from 'typebox';
import { Nullable, PROPERTY_FILTER_EXAMPLE, PROPERTY_FILTERS } from '../../wire/schemas.ts';
import { FUNNEL_EXAMPLE, PATH_EXAMPLE, RETENTION_EXAMPLE, TREND_EXAMPLE } from './insight.examples.ts';

const COMMON: Record<string, string> = {
  date_from:
    'Start of the range (here the whole range, unlike `/persons/trends/` where it names one bucket): a date (`2024-01-01`), a date-time, a relative `-7d`/`-2w`/`-1m`/`-24h` (also `-1mStart`), or `all`. Default `-7d`, floored to the start of its day.',
  date_to: 'End of the range, as date_from; default now, raised to the end of its day (or hour).',
  explicit_date: '`true` keeps date_from/date_to exactly as given instead of flooring and raising them.',
  properties: `Property filters every counted event must match. ${PROPERTY_FILTERS} Here \`type\` may also be \`event\`, the event's own properties.`,
  search: 'Only events of persons whose email or name contains this text, or whose distinct id does.',
};
const ENTITIES =
  'The series (steps): a JSON list of `{id, order?, name?, custom_name?, math?, math_property?, properties?}`, `id` an event name or null for any event.';
const BREAKDOWN: Record<string, string> = {
  breakdown:
    'Break the numbers down by this property (event or person), or by cohorts: a JSON list of cohort ids (or `all`).',
  breakdown_type: '`event` (default), `person` or `cohort`.',
  breakdown_limit: 'How many breakdown values to answer, most frequent first: an integer, default 25, 1 to 1000.',
};

export const TREND_PARAMS: Record<string, string> = {
  events:
    ENTITIES +
    ' `math`: `total` (default), `dau`, `weekly_active`, `monthly_active`, `unique_session`, or `sum`/`avg`/`min`/`max`/`median`/`p75`/`p90`/`p95`/`p99` of `math_property`.',
  actions: 'Not supported: a non-empty list answers 400.',
  interval: "`hour`, `day` (default), `week` (from Sunday) or `month`, in the project's timezone.",
  ...COMMON,
  display:
    '`ActionsLineGraph` (default) and other charts: one number per interval; `ActionsLineGraphCumulative`: running totals; `ActionsTable`, `BoldNumber`, `ActionsPie`, `ActionsBarValue`, `WorldMap`: one `aggregated_value` over the range.',
  shown_as:
    '`Trends` (default), `Stickiness` (persons by how many intervals they were active in) or `Lifecycle` (new, returning, resurrecting and dormant persons of the first series).',
  ...BREAKDOWN,
};

export const FUNNEL_PARAMS: Record<string, string> = {
  events: ENTITIES,
  actions: 'Not supported: a non-empty list answers 400.',
  ...COMMON,
  interval: 'The entrance periods of `funnel_viz_type=trends`: `hour`, `day` (default), `week` or `month`.',
  funnel_order_type:
    '`ordered` (default): steps in order; `strict`: each step the very next event; `unordered`: any order.',
  funnel_window_interval: 'The conversion window, counted from the first step (default 14).',
  funnel_window_interval_unit: '`minute`, `hour`, `day` (default), `week` or `month`.',
  funnel_window_days: 'Legacy: the conversion window in days (overrides the two above).',
  exclusions:
    'A JSON list of entities with `funnel_from_step`/`funnel_to_step` (0-based): an attempt with such an event between those steps does not count.',
  funnel_viz_type: '`steps` (default) or `trends` (conversion rate per entrance period).',
  funnel_from_step: 'Trends: the step (0-based) whose reachers form the denominator (default 0).',
  funnel_to_step: 'Trends: the step (0-based) whose reachers form the numerator (default the last).',
  ...BREAKDOWN,
};

export const RETENTION_PARAMS: Record<string, string> = {
  target_entity:
    'The entity that puts a person in a cohort: JSON `{"id": "$pageview", "type": "events"}` (the default).',
  returning_entity: 'The entity that counts as coming back (default the target entity).',
  retention_type:
    '`retention_recurring` (default: a person is in every cohort they performed the target in) or `retention_first_time` (only the cohort of their first time ever).',
  period: '`Hour`, `Day` (default), `Week` or `Month`.',
  total_intervals: 'How many cohorts (and periods) the table has (default 11).',
  date_to: "The last cohort's period holds this date (default now).",
  properties: COMMON.properties,
  search: COMMON.search,
};

export const PATH_PARAMS: Record<string, string> = {
  include_event_types:
    'JSON list of `$pageview` (items are URLs), `$screen` (screen names), `custom_event` (event names); empty: every event.',
  include_custom_events: 'JSON list of event names to include beside those types.',
  exclude_events: 'JSON list of path items to leave out.',
  start_point: 'Paths start at the first occurrence of this item.',
  end_point: 'Paths end at the first occurrence of this item.',
  step_limit: 'How many items a path keeps: an integer, default 5, 1 to 100.',
  path_groupings: 'JSON list of wildcard patterns (`/product/*`); an item matching one becomes the pattern.',
  funnel_paths:
    '`funnel_path_after_step`, `funnel_path_before_step` or `funnel_path_between_steps`, with `funnel_filter`.',
  funnel_filter: 'A funnel filter (JSON) whose `funnel_step` chooses the persons and bounds their events.',
  edge_limit: 'How many edges to answer, most persons first: an integer, default 50, 1 to 10 000.',
  min_edge_weight: 'Leave out edges with fewer persons: an integer, 0 or more, at most `max_edge_weight`.',
  max_edge_weight: 'Leave out edges with more persons: an integer, 0 or more.',
  ...COMMON,
};

/** Examples of the parameters whose format is not obvious, where the endpoint's example request has none. */
const PARAM_EXAMPLES: Record<string, unknown> = {
  properties: JSON.parse(PROPERTY_FILTER_EXAMPLE),
  breakdown: '$browser',
  exclusions: [{ id: 'cancelled', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
  target_entity: { id: 'signed up', type: 'events' },
  returning_entity: { id: '$pageview', type: 'events' },
  include_custom_events: ['signed up'],
  exclude_events: ['https://example.com/login'],
  path_groupings: ['/product/*'],
  funnel_filter: {
    events: [
      { id: '$pageview', order: 0 },
      { id: 'signup', order: 1 },
    ],
    funnel_step: 2,
  },
};

/** Query parameters: every documented one optional text (the example's value JSON-encoded); others pass through. */
export const queryOf = (params: Record<string, string>, example: Record<string, unknown>) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(params).map(([name, description]) => {
        const value = example[name] ?? PARAM_EXAMPLES[name];
        const examples =
          value === undefined ? {} : { examples: [typeof value === 'string' ? value : JSON.stringify(value)] };
        return [name, Type.Optional(Type.String({ description, ...examples }))];
      }),
    ),
    { additionalProperties: true },
  );

/** A POST body: the same parameters as native JSON (or JSON text), each optional. */
export const bodyOf = (params: Record<string, string>, example: Record<string, unknown>) =>
  Type.Object(
    Object.fromEntries(
      Object.entries(params).map(([name, description]) => [name, Type.Optional(Type.Unknown({ description }))]),
    ),
    {
      additionalProperties: true,
      examples: [example],
    },
  );

const Link = Type.Object({
  url: Type.String({
    description: 'A path of the persons view listing the persons behind the number, with the same filter.',
  }),
});

const Action = Type.Object(
  {
    id: Nullable(Type.String({ description: 'The event name; null for any event.' })),
    type: Type.Literal('events'),
    order: Type.Integer({ description: "The entity's place in `events`." }),
    name: Type.String({ description: 'The event name, or `All events`.' }),
    custom_name: Nullable(Type.String()),
    math: Type.String({ description: 'How events become a number: `total`, `dau`, `weekly_active`, …' }),
    math_property: Nullable(Type.String()),
  },
  { description: 'The entity of `events` the series counts.' },
);

const TrendSeries = Type.Object({
  action: Action,
  label: Type.String({
    description: "The entity's custom name or event name, with ` - <breakdown>` or ` - <status>`.",
  }),
  count: Type.Number({ description: 'The sum of `data` (the `aggregated_value` for single-number displays).' }),
  data: Type.Array(Type.Number(), {
    description: 'One number per interval (per N for stickiness; dormant negative for lifecycle).',
  }),
  days: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
    description: "Each interval's start (`YYYY-MM-DD`, `YYYY-MM-DD HH:MM:SS` for hours); stickiness: N.",
  }),
  labels: Type.Array(Type.String(), {
    description: 'Each interval for people: `1-Jan-2024`, `1-Jan-2024 14:00`; stickiness: `3 days`.',
  }),
  persons_urls: Type.Array(Link, { description: 'One link per number of `data` (one for single-number displays).' }),
  breakdown_value: Type.Optional(
    Type.Union([Type.String(), Type.Number()], {
      description: 'With a breakdown: the property value, or the cohort id (`all`: everyone).',
    }),
  ),
  aggregated_value: Type.Optional(
    Type.Number({ description: 'Single-number displays: the number over the whole range.' }),
  ),
  persons: Type.Optional(Link),
  status: Type.Optional(Type.String({ description: 'Lifecycle: `new`, `returning`, `resurrecting` or `dormant`.' })),
});

const FunnelStep = Type.Object({
  action_id: Nullable(Type.String({ description: "The step's event name; null for any event." })),
  name: Type.String(),
  custom_name: Nullable(Type.String()),
  order: Type.Integer({ description: "The step's place, from 0." }),
  type: Type.Literal('events'),
  count: Type.Integer({ description: 'Persons who reached this step.' }),
  average_conversion_time: Nullable(
    Type.Number({ description: 'Mean seconds from the step before, over the persons who reached this one.' }),
  ),
  median_conversion_time: Nullable(Type.Number({ description: 'Median seconds from the step before.' })),
  converted_people_url: Type.String({
    description: 'The persons who reached this step: `/persons/funnel/` with `funnel_step=N`.',
  }),
  dropped_people_url: Nullable(
    Type.String({ description: 'Persons who reached the step before but not this one; null for the first step.' }),
  ),
  breakdown: Type.Optional(
    Type.Union([Type.String(), Type.Number()], {
      description:
        "With a breakdown: the value (first touch: taken on the person's first step-1 event), or the cohort id.",
    }),
  ),
  breakdown_value: Type.Optional(
    Type.Union([Type.String(), Type.Number()], { description: 'The same as `breakdown`.' }),
  ),
});

const FunnelTrend = Type.Object({
  count: Type.Integer({ description: 'The number of entrance periods.' }),
  data: Type.Array(Type.Number(), { description: 'Conversion rate (percent, two decimals) of each entrance period.' }),
  days: Type.Array(Type.String(), { description: "Each entrance period's start." }),
  labels: Type.Array(Type.String()),
  reached_from_step_count: Type.Array(
    Type.Integer({ description: 'Persons of the period who reached `funnel_from_step`.' }),
  ),
  reached_to_step_count: Type.Array(
    Type.Integer({ description: 'Persons of the period who reached `funnel_to_step`.' }),
  ),
  converted_people_urls: Type.Array(Type.String({ description: 'The converted persons of the period.' })),
  dropped_people_urls: Type.Array(
    Type.String({ description: 'The persons of the period who reached `funnel_from_step` but not `funnel_to_step`.' }),
  ),
});

const RetentionRow = Type.Object({
  date: Type.String({ description: "The start of the cohort's period (UTC)." }),
  label: Type.String({ description: '`Day 0`, `Week 3`, …' }),
  values: Type.Array(
    Type.Object({
      count: Type.Integer({ description: 'Persons of the cohort who performed the returning event in that period.' }),
      people_url: Type.String({
        description: "The cohort's persons: those of the cell hold 1 at its index of `appearances`.",
      }),
    }),
    { description: "Period 0 (the cohort's size) first." },
  ),
  people_url: Type.String({ description: "The cohort's persons with their appearances." }),
});

const PathEdge = Type.Object({
  source: Type.String({ description: 'Node `<step>_<item>`, e.g. `1_/home`.' }),
  target: Type.String({ description: 'The node after `source` in the same session: `<step + 1>_<item>`.' }),
  value: Type.Integer({ description: 'Persons who went from source to target.' }),
  average_conversion_time: Nullable(Type.Number({ description: 'Mean milliseconds between the two nodes.' })),
  people_url: Type.String({
    description: 'The persons who took the edge: `/persons/path/` with `path_start_key` and `path_end_key`.',
  }),
});

export const InsightTrendResponse = Type.Object(
  { result: Type.Array(TrendSeries), next: Type.Null() },
  {
    $id: 'InsightTrendResponse',
    description: 'The series of a trends, stickiness or lifecycle insight.',
    examples: [TREND_EXAMPLE],
  },
);

export const InsightFunnelResponse = Type.Object(
  {
    result: Type.Union([Type.Array(FunnelStep), Type.Array(Type.Array(FunnelStep)), Type.Array(FunnelTrend)], {
      description:
        'The steps; with a breakdown one list of steps per value; with `funnel_viz_type=trends` one conversion series.',
    }),
  },
  { $id: 'InsightFunnelResponse', description: "A funnel's steps or conversion trend.", examples: [FUNNEL_EXAMPLE] },
);

export const InsightRetentionResponse = Type.Object(
  { result: Type.Array(RetentionRow) },
  {
    $id: 'InsightRetentionResponse',
    description: 'One row per cohort period.',
    examples: [RETENTION_EXAMPLE],
  },
);

export const InsightPathResponse = Type.Object(
  { result: Type.Array(PathEdge) },
  {
    $id: 'InsightPathResponse',
    description: 'The edges between path nodes, most persons first.',
    examples: [PATH_EXAMPLE],
  },
);
