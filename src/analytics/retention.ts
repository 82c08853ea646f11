// What a retention request is (target and returning entities, first-time or recurring, the
// periods and the window) and the relations the persons view and the insight share: cohorts,
// returns and both per person. The window ends at E = date_to + 1 period (midnight, except
// hourly) and spans total_intervals periods back.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import {
  addInterval,
  formatLocal,
  localSql,
  localTime,
  parseDate,
  rangeSql,
  truncate,
  type Interval,
} from './date-range.ts';
import { entitySql, parseEntity, resolveEntity, type Entity } from './entities.ts';
import { andSql, eventFiltersParam, eventFiltersSql, type EventFilters } from './filters.ts';
import { choiceParam, intParam, jsonParam, stringParam, type RawParams } from './params.ts';
import type { ViewContext } from './view-context.ts';

const PERIODS = ['Hour', 'Day', 'Week', 'Month'] as const;
const DEFAULT_TARGET = { id: '$pageview', type: 'events' };

function entityParam(context: ViewContext, raw: RawParams, key: string, fallback: unknown): Promise<Entity> {
  const value = jsonParam(raw, key) ?? fallback;
  return resolveEntity(context, parseEntity(value, key, 0), key);
}

/** The cohort window: S and E in local time (Week: S moved back to the preceding Sunday). */
export function retentionWindow(dateTo: Date, interval: Interval, total: number): { start: Date; end: Date } {
  let end = addInterval(dateTo, interval, 1);
  if (interval !== 'hour') end = truncate(end, 'day');
  let start = addInterval(end, interval, -total);
  if (interval === 'week') start = truncate(start, 'week');
  return { start, end };
}

/** A retention request (the persons view's and the insight's), as parsed from its parameters. */
export interface RetentionRequest {
  target: Entity;
  /** The returning entity: the target itself unless `returning_entity` is given. */
  returning: Entity;
  firstTime: boolean;
  interval: Interval;
  /** `period` as the request named it (`Day`, `Week`, …). */
  period: string;
  total: number;
  /** The cohort index the request selects (selected_interval or breakdown_values). */
  selected: number;
  /** The window's end as the request gave it (local time), before rounding. */
  dateTo: Date;
  start: Date;
  end: Date;
  filters: EventFilters;
}

export interface RetentionRelations {
  /** Rows `(person_id, cohort)` of a person slice: the cohort index of each performer of the target event (first-time: one each). */
  cohorts(slice: RawBuilder<unknown>): RawBuilder<unknown>;
  /** Rows `(person_id, period)` of a person slice: each period in the window where a person performed the returning event. */
  returned(slice: RawBuilder<unknown>): RawBuilder<unknown>;
  /**
   * Rows `(person_id, cohorts, returns)` of a person slice from one read of each person's events:
   * the person's cohort indexes and return periods, each sorted and distinct (`returns` null when
   * `sameEntity`: then they are the cohorts).
   */
  byPerson(slice: RawBuilder<unknown>): RawBuilder<unknown>;
  /** Recurring retention of one entity: `returned` holds the same rows as `cohorts`. */
  sameEntity: boolean;
}

export async function parseRetentionRequest(context: ViewContext, raw: RawParams): Promise<RetentionRequest> {
  const target = await entityParam(context, raw, 'target_entity', DEFAULT_TARGET);
  const returning =
    jsonParam(raw, 'returning_entity') === undefined
      ? target
      : await entityParam(context, raw, 'returning_entity', DEFAULT_TARGET);
  const type = choiceParam(
    raw,
    'retention_type',
    ['retention_recurring', 'retention_first_time'],
    'retention_recurring',
  );
  const period = choiceParam(raw, 'period', PERIODS, 'Day');
  const interval = period.toLowerCase() as Interval;
  const total = intParam(raw, 'total_intervals', { min: 1, max: 1000 }) ?? 11;
  let selected = intParam(raw, 'selected_interval', { min: 0 }) ?? 0;
  const breakdownValues = jsonParam(raw, 'breakdown_values');
  if (breakdownValues !== undefined) {
    if (!Array.isArray(breakdownValues) || !Number.isInteger(breakdownValues[0]))
      throw validationError('Expected a list holding a cohort index.', 'breakdown_values');
    selected = breakdownValues[0] as number;
  }
  if (selected < 0 || selected >= total)
    throw validationError(`Ensure this value is less than ${total}.`, 'selected_interval');
  const dateToRaw = stringParam(raw, 'date_to');
  const dateTo =
    dateToRaw === undefined
      ? localTime(context.now, context.timezone)
      : parseDate(dateToRaw, context.timezone, context.now, 'date_to').value;
  const { start, end } = retentionWindow(dateTo, interval, total);
  const filters = await eventFiltersParam(context, raw);
  const firstTime = type === 'retention_first_time';
  return { target, returning, firstTime, interval, period, total, selected, dateTo, start, end, filters };
}

/** The retention table's relations, shared by the persons view and the insight. */
export function retentionRelations(context: ViewContext, request: RetentionRequest): RetentionRelations {
  const { target, returning, firstTime, interval, start, end } = request;
  const local = localSql(sql.ref('e.timestamp'), context.timezone);
  const startSql = sql`${formatLocal(start)}::timestamp`;
  const index = periodIndex(interval, startSql);
  const common = [
    sql`e.team_id = ${context.teamId}`,
    sql`e.person_key > 0`,
    ...eventFiltersSql(request.filters, context.teamId),
  ];
  const inWindow = rangeSql(sql.ref('e.timestamp'), { from: start, to: end }, context.timezone);
  const isTarget = entitySql(target, context.teamId);
  const isReturn = entitySql(returning, context.teamId);
  const windowStart = sql`(${startSql} at time zone ${context.timezone})`;
  const windowEnd = sql`(${formatLocal(end)}::timestamp at time zone ${context.timezone})`;
  const cohorts = (slice: RawBuilder<unknown>) =>
    !firstTime
      ? sql`select distinct e.person_key as person_id, ${index(local)} as cohort from events e where ${andSql([...common, slice, isTarget, inWindow])}`
      : sql`select f.person_id, ${index(localSql(sql.ref('f.first_time'), context.timezone))} as cohort from (
        select e.person_key as person_id, min(e.timestamp) as first_time from events e where ${andSql([...common, slice, isTarget])} group by e.person_key
      ) f where f.first_time >= ${windowStart} and f.first_time < ${windowEnd}`;
  const returned = (slice: RawBuilder<unknown>) =>
    sql`select distinct e.person_key as person_id, ${index(local)} as period from events e where ${andSql([...common, slice, isReturn, inWindow])}`;
  const sameEntity = !firstTime && returning === target;
  const byPerson = (slice: RawBuilder<unknown>) => {
    const firstSeen = sql`min(e.timestamp) filter (where ${isTarget})`;
    const cohortsOf = firstTime
      ? sql`case when ${firstSeen} >= ${windowStart} and ${firstSeen} < ${windowEnd} then array[${index(localSql(firstSeen, context.timezone))}] end`
      : sql`array_agg(distinct ${index(local)}) filter (where ${isTarget})`;
    const returnsOf = sameEntity
      ? sql`null::int[]`
      : sql`array_agg(distinct ${index(local)}) filter (where ${isReturn} and ${inWindow})`;
    // First-time cohorts look before the window for each person's first event.
    const scope = firstTime
      ? sql`(${isTarget} or (${isReturn} and ${inWindow}))`
      : sql`((${isTarget} or ${isReturn}) and ${inWindow})`;
    return sql`select e.person_key as person_id, ${cohortsOf} as cohorts, ${returnsOf} as returns from events e where ${andSql([...common, slice, scope])} group by e.person_key`;
  };
  return { cohorts, returned, byPerson, sameEntity };
}

/**
 * Index of the period holding a local time: whole periods since S (months counted on the
 * calendar). Days and weeks count calendar days (S is a midnight); hours count elapsed seconds.
 */
function periodIndex(
  interval: Interval,
  startSql: RawBuilder<unknown>,
): (t: RawBuilder<unknown>) => RawBuilder<number> {
  if (interval === 'day') return (t) => sql<number>`(${t}::date - ${startSql}::date)`;
  if (interval === 'week') {
    // Floor division (integer division truncates towards zero).
    return (t) =>
      sql<number>`((${t}::date - ${startSql}::date) - (((${t}::date - ${startSql}::date) % 7) + 7) % 7) / 7`;
  }
  if (interval === 'hour') return (t) => sql<number>`floor(date_part('epoch', ${t} - ${startSql}) / 3600)::int`;
  const step = sql`${'1 month'}::interval`;
  const months = (t: RawBuilder<unknown>) =>
    sql`((extract(year from ${t}) - extract(year from ${startSql})) * 12 + extract(month from ${t}) - extract(month from ${startSql}))::int`;
  return (t) => sql<number>`(${months(t)} - case when ${t} < ${startSql} + ${months(t)} * ${step} then 1 else 0 end)`;
}
