// Persons behind one point of a trends graph: the persons with events of the
// target entity in the point's window, most events (or largest property aggregate) first.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import type { PageRequest } from '../wire/page.ts';
import { renderActors, type ActorsResult } from './actors.ts';
import { breakdownValueConditionSql, breakdownValueParam, type BreakdownValue } from './breakdowns.ts';
import { addInterval, parseDate, resolveRange, truncate, type Interval, type LocalRange } from './date-range.ts';
import { entityEventsSql, resolveEntity, targetEntity, type Entity } from './entities.ts';
import { eventFiltersParam, type EventFilters } from './filters.ts';
import { boolParam, intervalParam, stringParam, type RawParams } from './params.ts';
import { COUNT_MATHS, mathPropertySql, NON_TIME_SERIES, PROPERTY_MATHS } from './trends-maths.ts';
import type { ViewContext } from './view-context.ts';

/** A trends persons request, as parsed from its parameters. */
interface TrendsPersonsRequest {
  entity: Entity;
  /** The point's window (see trendsWindow). */
  range: LocalRange;
  filters: EventFilters;
  /**
   * The point's breakdown value. Unlike the insights, this view has no default `breakdown_type`:
   * it narrows only when both `breakdown_type` and `breakdown_value` are given.
   */
  breakdown: BreakdownValue | null;
  /** How persons are ordered: by their events, or by an aggregate of the entity's math property. */
  value: { kind: 'count' } | { kind: 'aggregate'; math: string; property: string };
}

async function parseTrendsPersonsRequest(context: ViewContext, raw: RawParams): Promise<TrendsPersonsRequest> {
  const entity = await resolveEntity(context, targetEntity(raw));
  const interval = intervalParam(raw);
  const range = trendsWindow(raw, context, interval, entity.math);
  const filters = await eventFiltersParam(context, raw);
  const type = stringParam(raw, 'breakdown_type');
  const value = raw.breakdown_value === undefined ? undefined : String(stringParam(raw, 'breakdown_value') ?? '');
  const breakdown =
    type === undefined || value === undefined
      ? null
      : await breakdownValueParam(context, raw, {
          type,
          value,
          attr: 'breakdown_value',
          allowAll: true,
          histogram: () => stringParam(raw, 'breakdown_histogram_bin_count') !== undefined,
        });
  return { entity, range, filters, breakdown, value: valueParam(entity) };
}

/** The window of the point: the whole range for cumulative/non-time-series displays, else the bucket. */
function trendsWindow(raw: RawParams, context: ViewContext, interval: Interval, math: string): LocalRange {
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

function valueParam(entity: Entity): TrendsPersonsRequest['value'] {
  if (COUNT_MATHS.includes(entity.math)) return { kind: 'count' };
  if (!PROPERTY_MATHS[entity.math]) throw validationError(`Math "${entity.math}" is not supported.`, 'entity_math');
  if (!entity.mathProperty) throw validationError('This math needs a math_property.', 'math_property');
  return { kind: 'aggregate', math: entity.math, property: entity.mathProperty };
}

function valueSql(value: TrendsPersonsRequest['value']): RawBuilder<unknown> {
  if (value.kind === 'count') return sql`count(*)`;
  return sql`(${PROPERTY_MATHS[value.math](mathPropertySql(value.property))})::float8`;
}

export async function trendsActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const request = await parseTrendsPersonsRequest(context, raw);
  const narrowed = request.breakdown ? breakdownValueConditionSql(request.breakdown, context.teamId) : sql`true`;
  const where = entityEventsSql(context, request.filters, request.entity, request.range, [narrowed]);
  const { rows } = await sql<{ person_id: number; value: number | null }>`
    select e.person_key as person_id, ${valueSql(request.value)} as value
    from events e
    where ${where}
    group by e.person_key
    order by value desc nulls last, e.person_key desc
    limit ${page.limit} offset ${page.offset}`.execute(context.db);
  return renderActors(
    context,
    rows.map((row) => Number(row.person_id)),
    'query',
  );
}
