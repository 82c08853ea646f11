// Lifecycle (`shown_as=Lifecycle`): per interval of the range, how many persons were new,
// returning, resurrecting and dormant (counted negative), from the same per-person periods as the
// lifecycle persons view that each point links to.
import { sql } from 'kysely';
import type { ViewContext } from '../actors.ts';
import { addInterval, intervalSql } from '../date-range.ts';
import { LIFECYCLE_TYPES, lifecycleSpec } from '../lifecycle.query.ts';
import type { RawParams } from '../params.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { bucketStarts, dayText, labelText, localFromText } from './buckets.ts';
import { personsUrl, rangeParams } from './links.ts';
import { refuseBreakdown } from './stickiness.insight.ts';
import { bucketKey, textSql } from './trend-series.query.ts';
import { actionOf, labelOf, type TrendSeries } from './series.ts';

export async function lifecycleInsight(context: ViewContext, raw: RawParams): Promise<TrendSeries[]> {
  refuseBreakdown(raw, 'Lifecycle');
  const spec = await lifecycleSpec(context, raw);
  const { entity, interval, range, status } = spec;
  const active = sql`m.period`;
  const after = sql`m.period + ${intervalSql(interval)}`;
  // One row per active period: its status there, and whether the person is dormant the period after.
  const parts = await acrossSlices(context, async (slice) => (await sql<Record<string, unknown> & { t: string }>`
    select ${textSql(sql.ref('m.period'))} as t,
      count(*) filter (where ${status('new', active)}) as new,
      count(*) filter (where ${status('returning', active)}) as returning,
      count(*) filter (where ${status('resurrecting', active)}) as resurrecting,
      count(*) filter (where ${status('dormant', after)}) as dormant_after
    from (${spec.marked(slice)}) m
    group by m.period`.execute(context.db)).rows);
  const rows = sumRows(parts, ['t'], ['new', 'returning', 'resurrecting', 'dormant_after']);
  const counts = new Map<string, number>();
  for (const row of rows) {
    for (const type of ['new', 'returning', 'resurrecting'] as const) counts.set(`${type} ${row.t}`, Number(row[type]));
    counts.set(`dormant ${bucketKey(addInterval(localFromText(row.t), interval, 1))}`, Number(row.dormant_after));
  }
  const first = range.from ?? rows.map((row) => localFromText(row.t)).reduce<Date | null>((min, t) => (min === null || t < min ? t : min), null);
  const starts = first ? bucketStarts(first, new Date(range.to.getTime() - 1), interval) : [];
  const days = starts.map((start) => dayText(start, interval));
  return LIFECYCLE_TYPES.map((type) => {
    const data = starts.map((start) => (type === 'dormant' ? -1 : 1) * (counts.get(`${type} ${bucketKey(start)}`) ?? 0));
    return {
      action: actionOf(entity),
      label: `${labelOf(entity)} - ${type}`,
      status: type,
      count: data.reduce((total, value) => total + value, 0),
      data,
      days,
      labels: starts.map((start) => labelText(start, interval)),
      persons_urls: starts.map((start) => ({
        url: personsUrl(context.teamId, 'lifecycle', raw, { ...rangeParams(range), target_date: dayText(start, interval), lifecycle_type: type }),
      })),
    };
  });
}
