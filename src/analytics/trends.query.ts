// Persons behind one point of a trends graph: the persons with events of the
// target entity in the point's window, most events (or largest property aggregate) first.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { renderActors, type ActorsResult } from './actors.ts';
import type { ViewContext } from './view-context.ts';
import { addInterval, parseDate, resolveRange, truncate, type Interval, type LocalRange } from './date-range.ts';
import { entityEventsSql, resolveEntity, targetEntity, type Entity } from './entities.ts';
import { filterSql, parseFilter, resolveFilter } from './filters.ts';
import { boolParam, intervalParam, jsonParam, stringParam, type RawParams } from './params.ts';
import type { PageRequest } from '../wire/page.ts';

export const NON_TIME_SERIES = [
  'ActionsLineGraphCumulative',
  'ActionsTable',
  'ActionsPie',
  'ActionsBarValue',
  'WorldMap',
  'BoldNumber',
  'ActionsDonut',
  'CalendarHeatmap',
];
export const PROPERTY_MATHS: Record<string, (value: RawBuilder<unknown>) => RawBuilder<unknown>> = {
  sum: (v) => sql`sum(${v})`,
  avg: (v) => sql`avg(${v})`,
  min: (v) => sql`min(${v})`,
  max: (v) => sql`max(${v})`,
  median: (v) => sql`percentile_cont(0.5) within group (order by ${v})`,
  p75: (v) => sql`percentile_cont(0.75) within group (order by ${v})`,
  p90: (v) => sql`percentile_cont(0.9) within group (order by ${v})`,
  p95: (v) => sql`percentile_cont(0.95) within group (order by ${v})`,
  p99: (v) => sql`percentile_cont(0.99) within group (order by ${v})`,
};
export const COUNT_MATHS = ['total', 'dau', 'unique_session', 'weekly_active', 'monthly_active'];

/** The window of the point: the whole range for cumulative/non-time-series displays, else the bucket. */
export function trendsWindow(raw: RawParams, context: ViewContext, interval: Interval, math: string): LocalRange {
  const display = stringParam(raw, 'display') ?? 'ActionsLineGraph';
  const explicit = boolParam(raw, 'explicit_date') ?? false;
  const dateFrom = stringParam(raw, 'date_from');
  const dateTo = stringParam(raw, 'date_to');
  const base = { interval, explicit, timezone: context.timezone, now: context.now };
  let range: LocalRange;
  if (NON_TIME_SERIES.includes(display) || dateFrom === undefined || dateFrom === 'all') {
    range = resolveRange({ ...base, dateFrom, dateTo });
  } else {
    const parsed = parseDate(dateFrom, context.timezone, context.now, 'date_from');
    const from = truncate(
      parsed.value,
      interval === 'hour' || parsed.hourly ? 'hour' : interval === 'week' || interval === 'month' ? interval : 'day',
    );
    // Era A clients send only the bucket start (or date_to == date_from): the bucket's end follows from the interval.
    range =
      dateTo === undefined || dateTo === dateFrom
        ? { from, to: addInterval(from, interval, 1) }
        : { ...resolveRange({ ...base, dateFrom, dateTo }), from };
  }
  // Active-user maths count persons active in the trailing week/month ending at the point.
  if (range.from && math === 'weekly_active') range.from = addInterval(range.from, 'day', -6);
  if (range.from && math === 'monthly_active') range.from = addInterval(range.from, 'day', -29);
  return range;
}

/** Breakdown narrowing: a cohort, or an exact property value where a missing property counts as "". */
async function breakdownSql(context: ViewContext, raw: RawParams): Promise<RawBuilder<unknown>> {
  const teamId = context.teamId;
  const type = stringParam(raw, 'breakdown_type');
  const value = raw.breakdown_value === undefined ? undefined : String(stringParam(raw, 'breakdown_value') ?? '');
  if (type === undefined || value === undefined) return sql`true`;
  if (type === 'cohort') {
    if (value === 'all') return sql`true`;
    if (!/^\d{1,9}$/.test(value)) throw validationError('A valid cohort id is required.', 'breakdown_value');
    return filterSql(
      await resolveFilter(
        context,
        parseFilter([{ key: 'id', type: 'cohort', value: Number(value) }], 'breakdown_value'),
        'breakdown_value',
      ),
      teamId,
    );
  }
  if (type !== 'event' && type !== 'person')
    throw validationError(`Breakdown type "${type}" is not supported.`, 'breakdown_type');
  const key = breakdownKey(raw);
  if (stringParam(raw, 'breakdown_histogram_bin_count') !== undefined) {
    // A histogram bucket arrives as "[lo, hi]": lo <= value < hi.
    const bounds = jsonParam(raw, 'breakdown_value', 'breakdown_value is not valid JSON.');
    if (
      !Array.isArray(bounds) ||
      bounds.length !== 2 ||
      !bounds.every((bound) => typeof bound === 'number' && Number.isFinite(bound))
    ) {
      throw validationError('A histogram breakdown_value must be a [lower, upper] pair of numbers.', 'breakdown_value');
    }
    const filter = [
      { key, value: bounds[0], operator: 'gte', type },
      { key, value: bounds[1], operator: 'lt', type },
    ];
    return filterSql(parseFilter(filter, 'breakdown_value'), teamId);
  }
  return sql`${breakdownValueSql(type, key)} = ${value}`;
}

/** `breakdown`: a property name, or a JSON list holding one. */
export function breakdownKey(raw: RawParams): string {
  let key: unknown = raw.breakdown;
  if (typeof key === 'string' && key.startsWith('[')) key = jsonParam(raw, 'breakdown', 'breakdown is not valid JSON.');
  if (typeof key === 'number') key = String(key);
  if (Array.isArray(key) && key.length === 1) key = key[0];
  if (typeof key !== 'string') throw validationError('A single breakdown property is required.', 'breakdown');
  return key;
}

/** The breakdown value of the event row `e`: the property as text, a missing one as "". */
export function breakdownValueSql(type: 'event' | 'person', key: string): RawBuilder<string> {
  const column = type === 'event' ? sql.ref('e.properties') : sql.ref('e.person_properties');
  return sql<string>`coalesce(${column}->>${key}, '')`;
}

function valueSql(entity: Entity): RawBuilder<unknown> {
  if (COUNT_MATHS.includes(entity.math)) return sql`count(*)`;
  const aggregate = PROPERTY_MATHS[entity.math];
  if (!aggregate) throw validationError(`Math "${entity.math}" is not supported.`, 'entity_math');
  if (!entity.mathProperty) throw validationError('This math needs a math_property.', 'math_property');
  const property = sql`e.properties->${entity.mathProperty}`;
  const numeric = sql`case when jsonb_typeof(${property}) = 'number' then (${property})::text::numeric end`;
  return sql`(${aggregate(numeric)})::float8`;
}

export async function trendsActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const entity = await resolveEntity(context, targetEntity(raw));
  const interval = intervalParam(raw);
  const range = trendsWindow(raw, context, interval, entity.math);
  const where = await entityEventsSql(context, raw, entity, range, () => breakdownSql(context, raw));
  const { rows } = await sql<{ person_id: number; value: number | null }>`
    select e.person_id, ${valueSql(entity)} as value
    from events e
    where ${where}
    group by e.person_id
    order by value desc nulls last, e.person_id desc
    limit ${page.limit} offset ${page.offset}`.execute(context.db);
  return renderActors(
    context,
    rows.map((row) => Number(row.person_id)),
    'query',
  );
}
