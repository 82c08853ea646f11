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
import { acrossSlices, sumRows } from '../person-slices.ts';
import type { ViewContext } from '../view-context.ts';
import { bucketStarts, localFromText } from './buckets.ts';
import { bitSumSql, dayBitSql, daysFrom } from './day-masks.ts';
import { bucketKey, textSql } from './trend-series.ts';

/** Days one mask holds; bit 63 stays clear, so a mask is never negative. */
const MASK_DAYS = 63;

/**
 * Daily counts without ordering anyone's days: one bigint per person, bit k set when active on the
 * window's k-th day (the range and a day either side). On day k a person is returning with bits k
 * and k-1, started with bit k but not k-1 (new when k is their first bit and the day they were
 * created, else resurrecting), dormant with bit k-1 but not k. A window longer than a mask, or
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
  const sums = (mask: string) => bits.map((bit) => bitSumSql(sql.ref(mask), bit));
  const columns = ['returning', 'started', 'dormant', 'new'].flatMap((type) => bits.map((_, i) => `${type}${i}`));
  const selected = ['r', 's', 'd', 'n']
    .flatMap((mask) => sums(mask))
    .map((sum, i) => sql`${sum} as ${sql.ref(columns[i])}`);
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<Record<string, number>>`
    -- Materialized: each mask once per person, not once per day's sum.
    with masks as materialized (
      select k.m & (k.m << 1) as r, k.m & (~(k.m << 1)) as s, (k.m << 1) & (~k.m) as d,
        case when k.c between 0 and ${sql.lit(MASK_DAYS - 1)} and (k.m & (-k.m)) = (1::bigint << k.c) then 1::bigint << k.c else 0 end as n
      from (
        select x.m, ${day('p.created_at')} as c
        from (
          select e.person_id, bit_or(1::bigint << ${day('e.timestamp')}) as m
          from events e where ${lifecycleWhereSql(context, spec)} and ${slice}
          group by e.person_id
        ) x
        left join persons p on p.team_id = ${context.teamId} and p.id = x.person_id
      ) k
    )
    select ${sql.join(selected)} from masks`.execute(context.db)
      ).rows,
  );
  const total = new Map<string, number>();
  for (const row of parts.flat())
    for (const column of columns) total.set(column, (total.get(column) ?? 0) + Number(row[column] ?? 0));
  const counts = new Map<string, number>();
  starts.forEach((start, i) => {
    const value = (type: string) => total.get(`${type}${i}`) ?? 0;
    counts.set(`new ${bucketKey(start)}`, value('new'));
    counts.set(`returning ${bucketKey(start)}`, value('returning'));
    counts.set(`resurrecting ${bucketKey(start)}`, value('started') - value('new'));
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
