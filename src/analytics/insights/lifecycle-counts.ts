// The lifecycle insight's counts: per interval of the range, how many persons were new,
// returning, resurrecting and dormant, by one of two engines (LifecycleEngine).
import { sql, type RawBuilder } from 'kysely';
import { addInterval, intervalSql } from '../date-range.ts';
import {
  lifecycleWhereSql,
  markedPeriodsSql,
  statusSql,
  type LifecycleRequest,
  type LifecycleType,
} from '../lifecycle.ts';
import { acrossPersonSlices, acrossSlices, slicePersonsSql, sumRows } from '../person-slices.ts';
import type { ViewContext } from '../view-context.ts';
import { bucketStarts, localFromText } from './buckets.ts';
import { dayBitSql, daysFrom } from './day-masks.ts';
import { bucketKey, textSql } from './trend-series.ts';

/** Days one mask holds; bit 63 stays clear, so a mask is never negative. */
const MASK_DAYS = 63;

/**
 * Daily counts without ordering anyone's days: one bigint per person, bit k set when active on the
 * window's k-th day (the range and a day either side), and the person's first day. On day k a
 * person is returning with bits k and k-1, started with bit k but not k-1 (new when k is their
 * first day and the day they were created, else resurrecting), dormant with bit k-1 but not k. A window longer than a mask, or
 * open-ended, is the per-period rows' to answer.
 */
async function dayMaskCounts(
  context: ViewContext,
  spec: LifecycleRequest,
  starts: Date[],
  origin: Date,
): Promise<Map<string, number>> {
  const day = (column: string) => dayBitSql(sql.ref(column), context.timezone, origin);
  const bits = starts.map((start) => daysFrom(origin, start));
  const where = lifecycleWhereSql(context, spec);
  const bit = (k: number) => sql`(x.m >> ${sql.lit(k)})`;
  // Day k: bits k and k-1 (returning), k without k-1 (started), k-1 without k (dormant).
  const measures: Record<string, (k: number) => RawBuilder<unknown>> = {
    returning: (k) => sql`sum((${bit(k)} & ${bit(k - 1)} & 1)::int)`,
    started: (k) => sql`sum((${bit(k)} & ~${bit(k - 1)} & 1)::int)`,
    dormant: (k) => sql`sum((~${bit(k)} & ${bit(k - 1)} & 1)::int)`,
  };
  const columns = Object.keys(measures).flatMap((type) => bits.map((_, i) => `${type}${i}`));
  const selected = Object.values(measures)
    .flatMap((measure) => bits.map(measure))
    .map((measure, i) => sql`${measure} as ${sql.ref(columns[i])}`);
  // Two statements a slice: the masks' sums need no person row (on Citus each shard sums its own
  // persons' masks); the new persons do (their created day), so each person's first day travels
  // once to the persons' shard and is joined there, not every person sent to each events shard.
  const [sums, news] = await Promise.all([
    acrossSlices(
      context,
      async (slice) =>
        (
          await sql<Record<string, number>>`
    select ${sql.join(selected)} from (
      select bit_or(1::bigint << ${day('e.timestamp')}) as m
      from events e where ${where} and ${slice}
      group by e.person_key
    ) x`.execute(context.db)
        ).rows,
    ),
    acrossPersonSlices(
      context,
      async (slice, persons) =>
        (
          await sql<{ f: number; persons: number }>`
    with firsts as materialized (
      select e.person_key as person_id, min(${day('e.timestamp')}) as f
      from events e where ${where} and ${slice}
      group by e.person_key
    )
    select x.f, count(*) as persons
    from firsts x
    join (${slicePersonsSql(context.teamId, sql`p.created_at`, persons)}) p on p.id = x.person_id
    where ${day('p.created_at')} = x.f
    group by x.f`.execute(context.db)
        ).rows,
    ),
  ]);
  const total = new Map<string, number>();
  for (const row of sums.flat())
    for (const column of columns) total.set(column, (total.get(column) ?? 0) + Number(row[column] ?? 0));
  // New persons by their first day (a first day before the range, bit 0, is on no day of it).
  const newOn = new Map<number, number>();
  for (const row of news.flat()) newOn.set(Number(row.f), (newOn.get(Number(row.f)) ?? 0) + Number(row.persons));
  const counts = new Map<string, number>();
  starts.forEach((start, i) => {
    const value = (type: string) => total.get(`${type}${i}`) ?? 0;
    const created = newOn.get(bits[i]) ?? 0;
    counts.set(`new ${bucketKey(start)}`, created);
    counts.set(`returning ${bucketKey(start)}`, value('returning'));
    counts.set(`resurrecting ${bucketKey(start)}`, value('started') - created);
    counts.set(`dormant ${bucketKey(start)}`, value('dormant'));
  });
  return counts;
}

/** Counts per period from each person's active periods beside their neighbours (any interval). */
async function periodCounts(
  context: ViewContext,
  spec: LifecycleRequest,
): Promise<{ counts: Map<string, number>; first: Date | null }> {
  const { interval } = spec;
  const status = (type: LifecycleType, target: RawBuilder<unknown>) => statusSql(interval, type, target);
  const active = sql`m.period`;
  const after = sql`m.period + ${intervalSql(interval)}`;
  // One row per active period: its status there, and whether the person is dormant the period after.
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<Record<string, unknown> & { t: string }>`
    select ${textSql(sql.ref('m.period'))} as t,
      count(*) filter (where ${status('new', active)}) as new,
      count(*) filter (where ${status('returning', active)}) as returning,
      count(*) filter (where ${status('resurrecting', active)}) as resurrecting,
      count(*) filter (where ${status('dormant', after)}) as dormant_after
    from (${markedPeriodsSql(context, spec, slice)}) m
    group by m.period`.execute(context.db)
      ).rows,
  );
  const rows = sumRows(parts, ['t'], ['new', 'returning', 'resurrecting', 'dormant_after']);
  const counts = new Map<string, number>();
  for (const row of rows) {
    for (const type of ['new', 'returning', 'resurrecting'] as const) counts.set(`${type} ${row.t}`, Number(row[type]));
    counts.set(`dormant ${bucketKey(addInterval(localFromText(row.t), interval, 1))}`, Number(row.dormant_after));
  }
  const first =
    spec.range.from ??
    rows.map((row) => localFromText(row.t)).reduce<Date | null>((min, t) => (min === null || t < min ? t : min), null);
  return { counts, first };
}

/**
 * The two engines of the lifecycle insight: `day-masks` (dayMaskCounts) for daily lifecycles whose
 * window fits in one mask, `period-rows` (periodCounts, the relation of the persons view) for any.
 */
export type LifecycleEngine = 'day-masks' | 'period-rows';

/** The day masks where they can answer (no per-period rows, no window pass), else the period rows. */
export function lifecycleEngineOf(spec: LifecycleRequest, starts: Date[]): LifecycleEngine {
  const origin = spec.window.from;
  if (spec.interval !== 'day' || origin === null || starts.length === 0) return 'period-rows';
  return daysFrom(origin, spec.window.to) > MASK_DAYS ? 'period-rows' : 'day-masks';
}

/**
 * The buckets of the range and each status's count there, keyed `${type} ${bucketKey}`; by the
 * engine lifecycleEngineOf chooses, unless one is named.
 */
export async function lifecycleCounts(
  context: ViewContext,
  spec: LifecycleRequest,
  engine?: LifecycleEngine,
): Promise<{ counts: Map<string, number>; starts: Date[] }> {
  const { interval, range } = spec;
  const last = new Date(range.to.getTime() - 1);
  if (range.from) {
    const starts = bucketStarts(range.from, last, interval);
    const eligible = lifecycleEngineOf(spec, starts);
    if (engine === 'day-masks' && eligible !== 'day-masks')
      throw new Error('The day masks answer daily lifecycles of a bounded window of up to 63 days only.');
    if ((engine ?? eligible) === 'day-masks' && spec.window.from)
      return { counts: await dayMaskCounts(context, spec, starts, spec.window.from), starts };
  } else if (engine === 'day-masks') {
    throw new Error('The day masks answer daily lifecycles of a bounded window of up to 63 days only.');
  }
  const { counts, first } = await periodCounts(context, spec);
  return { counts, starts: first ? bucketStarts(first, last, interval) : [] };
}
