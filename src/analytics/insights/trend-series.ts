// The numbers of one trends series, grouped by breakdown value: per bucket, running (cumulative)
// or over the whole range. Each mirrors what the trends persons view selects for the point, so a
// `dau` number is the count of the persons its link lists.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import type { ViewContext } from '../view-context.ts';
import {
  addInterval,
  bucketSql,
  formatLocal,
  localSql,
  rangeSql,
  type Interval,
  type LocalRange,
} from '../date-range.ts';
import type { Entity } from '../entities.ts';
import { andSql } from '../filters.ts';
import { COUNT_MATHS, mathPropertySql, PROPERTY_MATHS } from '../trends-maths.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { startsSql } from './buckets.ts';
import { bitSumSql, dayBitSql } from './day-masks.ts';

/** How a series turns events into one number. */
export type Measure =
  | { kind: 'aggregate'; value: RawBuilder<unknown> }
  | { kind: 'distinct'; key: RawBuilder<unknown>; condition: RawBuilder<unknown>; perPerson: boolean }
  | { kind: 'active'; key: RawBuilder<unknown>; condition: RawBuilder<unknown>; days: number };

export function measureOf(entity: Entity, interval: Interval): Measure {
  const math = entity.math;
  if (math === 'total') return { kind: 'aggregate', value: sql`count(*)` };
  if (math === 'dau')
    return { kind: 'distinct', key: sql`e.person_key`, condition: sql`e.person_key > 0`, perPerson: true };
  if (math === 'unique_session') {
    return {
      kind: 'distinct',
      key: sql`e.properties->>'$session_id'`,
      condition: sql`e.properties->>'$session_id' is not null`,
      perPerson: false,
    };
  }
  if (math === 'weekly_active' || math === 'monthly_active') {
    // The persons view counts the trailing week/month in days; hours have no such window.
    if (interval === 'hour') throw validationError(`Math "${math}" needs an interval of a day or longer.`, 'interval');
    return {
      kind: 'active',
      key: sql`e.person_key`,
      condition: sql`e.person_key > 0`,
      days: math === 'weekly_active' ? 6 : 29,
    };
  }
  const aggregate = PROPERTY_MATHS[math];
  if (!aggregate || COUNT_MATHS.includes(math)) throw validationError(`Math "${math}" is not supported.`, 'events');
  if (!entity.mathProperty) throw validationError(`Math "${math}" needs a math_property.`, 'events');
  return { kind: 'aggregate', value: sql`coalesce((${aggregate(mathPropertySql(entity.mathProperty))})::float8, 0)` };
}

export interface SeriesQuery {
  context: ViewContext;
  /** Conditions on the event row `e` besides the time range. */
  where: RawBuilder<unknown>[];
  measure: Measure;
  /** The breakdown value of `e` ('' without a breakdown). */
  group: RawBuilder<unknown>;
  interval: Interval;
}

/** `group` → value, keyed by bucket start text (`YYYY-MM-DD HH:MM:SS`) or '' for a whole-range number. */
export type SeriesValues = Map<string, Map<string, number>>;

type ValueRow = { g: string; b: string | null; v: number | string };

/** Distinct persons add up over person slices (run at once); distinct sessions are counted whole. */
async function distinctRows(
  context: ViewContext,
  measure: Measure,
  build: (slice: RawBuilder<unknown>) => RawBuilder<unknown>,
): Promise<ValueRow[]> {
  if (measure.kind === 'aggregate' || (measure.kind === 'distinct' && !measure.perPerson))
    return (await sql<ValueRow>`${build(sql`true`)}`.execute(context.db)).rows;
  const parts = await acrossSlices(
    context,
    async (slice) => (await sql<ValueRow>`${build(slice)}`.execute(context.db)).rows,
  );
  return sumRows(parts, ['g', 'b'], ['v']);
}

function collect(rows: ValueRow[]): SeriesValues {
  const values: SeriesValues = new Map();
  for (const row of rows) {
    if (!values.has(row.g)) values.set(row.g, new Map());
    values.get(row.g)?.set(row.b ?? '', Number(row.v));
  }
  return values;
}

/** The active maths look back from each bucket: their events start that many days earlier. */
function widen(range: LocalRange, measure: Measure): LocalRange {
  return measure.kind === 'active' && range.from
    ? { from: addInterval(range.from, 'day', -measure.days), to: range.to }
    : range;
}

/** An aggregate per group and bucket; the running totals add these up. */
async function aggregateByBucket(
  query: SeriesQuery,
  value: RawBuilder<unknown>,
  bucket: RawBuilder<unknown>,
  where: RawBuilder<unknown>[],
): Promise<SeriesValues> {
  return collect(
    (
      await sql<ValueRow>`
    select x.g, ${textSql(sql.ref('x.b'))} as b, x.v from (
      select ${query.group} as g, ${bucket} as b, ${value} as v from events e where ${andSql(where)} group by 1, 2
    ) x`.execute(query.context.db)
    ).rows,
  );
}

/** One number per bucket of `starts` (whole buckets, as the persons view of a point selects). */
export async function bucketValues(query: SeriesQuery, starts: Date[]): Promise<SeriesValues> {
  const { context, measure, group, interval } = query;
  const window = widen({ from: starts[0], to: addInterval(starts[starts.length - 1], interval, 1) }, measure);
  const local = localSql(sql.ref('e.timestamp'), context.timezone);
  const bucket = bucketSql(local, interval);
  const base = [...query.where, rangeSql(sql.ref('e.timestamp'), window, context.timezone)];
  if (measure.kind === 'aggregate') return aggregateByBucket(query, measure.value, bucket, base);
  // Daily actives are the active maths with no days after: one mask per person, no distinct pairs.
  if (measure.kind === 'distinct' && measure.perPerson && interval === 'day')
    return activeByDay(query, { ...measure, kind: 'active', days: 0 }, starts);
  if (measure.kind === 'distinct') {
    // Distinct pairs first: a hash aggregate (parallel where the server can), not a sort per bucket.
    return collect(
      await distinctRows(
        context,
        measure,
        (slice) => sql`
      select d.g, ${textSql(sql.ref('d.b'))} as b, count(*) as v from (
        select distinct ${measure.key} as k, ${group} as g, ${bucket} as b
        from events e where ${andSql([...base, measure.condition, slice])}
      ) d group by d.g, d.b`,
      ),
    );
  }
  if (interval === 'day') return activeByDay(query, measure, starts);
  // Active users: each bucket counts the keys seen from `days` days before its start to its end.
  const ends = starts.map((start) => addInterval(start, interval, 1));
  return collect(
    (
      await sql<{ g: string; b: string; v: number }>`
    with seen as (
      select distinct ${group} as g, date_trunc('day', ${local}) as d, ${measure.key} as k
      from events e where ${andSql([...base, measure.condition])}
    )
    select s.g, ${textSql(sql.ref('w.start'))} as b, count(distinct s.k) as v
    from unnest(${startsSql(starts)}, ${startsSql(ends)}) as w(start, stop)
    join seen s on s.d >= w.start - ${measure.days} * interval '1 day' and s.d < w.stop
    group by s.g, w.start`.execute(context.db)
    ).rows,
  );
}

/** Days one bigint holds as bits: the days of one window of `activeByDay`. */
const MASK_DAYS = 64;

/**
 * Active users per day without following anyone's days in order: in windows of at most 64 days,
 * each key's days are the bits of one bigint (bit i: seen on the window's i-th day, one `bit_or`
 * per event), its coverage that mask spread over the `days` days after each bit, and a day's
 * number the count of keys whose coverage holds its bit. A window answers 64 - days buckets, so a
 * longer range takes several windows, each reading its own days (and the `days` before them).
 */
async function activeByDay(
  query: SeriesQuery,
  measure: Measure & { kind: 'active' },
  starts: Date[],
): Promise<SeriesValues> {
  const { context, group } = query;
  const perWindow = MASK_DAYS - measure.days;
  // PostgreSQL's bit operators share one precedence, left to right: each shift in parentheses. The
  // coverage is materialized, else every bucket's sum would compute it again.
  const coverage = sql.join(
    Array.from({ length: measure.days + 1 }, (_, k) => sql`(m << ${sql.lit(k)})`),
    sql` | `,
  );
  const values: SeriesValues = new Map();
  for (let first = 0; first < starts.length; first += perWindow) {
    const buckets = starts.slice(first, first + perWindow);
    const origin = addInterval(buckets[0], 'day', -measure.days);
    const window = rangeSql(
      sql.ref('e.timestamp'),
      { from: origin, to: addInterval(buckets[buckets.length - 1], 'day', 1) },
      context.timezone,
    );
    const day = dayBitSql(sql.ref('e.timestamp'), context.timezone, origin);
    const columns = buckets.map((_, j) => `v${j}`);
    const sums = buckets.map((_, j) => sql`${bitSumSql(sql.ref('cov'), j + measure.days)} as ${sql.ref(columns[j])}`);
    const parts = await acrossSlices(
      context,
      async (slice) =>
        (
          await sql<Record<string, string | number>>`
      with c as materialized (
        select k.g, ${coverage} as cov from (
          select ${group} as g, bit_or(1::bigint << ${day}) as m
          from events e where ${andSql([...query.where, window, measure.condition, slice])}
          group by ${measure.key}, 1
        ) k
      )
      select c.g, ${sql.join(sums)} from c group by c.g`.execute(context.db)
        ).rows,
    );
    for (const row of sumRows(parts, ['g'], columns)) {
      const g = String(row.g);
      if (!values.has(g)) values.set(g, new Map());
      buckets.forEach((start, j) => values.get(g)?.set(bucketKey(start), Number(row[columns[j]])));
    }
  }
  return values;
}

/**
 * Running numbers from the range start to each bucket's end: aggregates are summed by the
 * caller; distinct keys count once, in the bucket where first seen.
 */
export async function firstSeenValues(query: SeriesQuery, range: LocalRange, end: Date): Promise<SeriesValues> {
  const { context, measure, group, interval } = query;
  const window = widen({ from: range.from, to: end }, measure);
  const bucket = bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval);
  const base = [...query.where, rangeSql(sql.ref('e.timestamp'), window, context.timezone)];
  if (measure.kind === 'aggregate') return aggregateByBucket(query, measure.value, bucket, base);
  return collect(
    await distinctRows(
      context,
      measure,
      (slice) => sql`
    select f.g, ${textSql(sql.ref('f.b'))} as b, count(*) as v from (
      select ${group} as g, ${measure.key} as k, min(${bucket}) as b
      from events e where ${andSql([...base, measure.condition, slice])} group by 1, 2
    ) f group by f.g, f.b`,
    ),
  );
}

/** One number over the whole range (the displays that show a single value). */
export async function rangeValues(query: SeriesQuery, range: LocalRange): Promise<SeriesValues> {
  const { context, measure, group } = query;
  const base = [...query.where, rangeSql(sql.ref('e.timestamp'), widen(range, measure), context.timezone)];
  if (measure.kind === 'aggregate') {
    return collect(
      (
        await sql<{ g: string; b: null; v: number }>`
      select ${group} as g, null as b, ${measure.value} as v from events e where ${andSql(base)} group by 1`.execute(
          context.db,
        )
      ).rows,
    );
  }
  return collect(
    await distinctRows(
      context,
      measure,
      (slice) => sql`
    select g, null as b, count(*) as v from (
      select distinct ${group} as g, ${measure.key} as k from events e where ${andSql([...base, measure.condition, slice])}
    ) d group by 1`,
    ),
  );
}

/** The most frequent breakdown values of the series over its range, most events first. */
export async function topGroups(query: SeriesQuery, range: LocalRange, limit: number): Promise<string[]> {
  const { context } = query;
  const base = [...query.where, rangeSql(sql.ref('e.timestamp'), widen(range, query.measure), context.timezone)];
  const { rows } = await sql<{ g: string }>`
    select ${query.group} as g from events e where ${andSql(base)}
    group by 1 order by count(*) desc, 1 limit ${limit}`.execute(context.db);
  return rows.map((row) => row.g);
}

/** The local time of the earliest event of the series (for `date_from=all`), or null. */
export async function earliestEvent(query: SeriesQuery): Promise<Date | null> {
  const { rows } = await sql<{ first: string | null }>`
    select ${textSql(sql`min(${localSql(sql.ref('e.timestamp'), query.context.timezone)})`)} as first
    from events e where ${andSql(query.where)}`.execute(query.context.db);
  const first = rows[0]?.first;
  return first ? new Date(`${first.replace(' ', 'T')}Z`) : null;
}

/** A local timestamp as `YYYY-MM-DD HH:MM:SS`, whatever the session's DateStyle. */
export const textSql = (local: RawBuilder<unknown>) => sql<string>`to_char(${local}, 'YYYY-MM-DD HH24:MI:SS')`;

/** The key of a bucket in SeriesValues: its start as `textSql` writes it. */
export const bucketKey = (start: Date) => formatLocal(start).slice(0, 19);
