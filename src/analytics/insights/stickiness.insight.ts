// Stickiness (`shown_as=Stickiness`): for each entity, how many persons were active in exactly
// N of the range's intervals, N = 1 … the number of intervals; each bar links to the stickiness
// persons view with `stickiness_days=N`.
import { sql } from 'kysely';
import type { ViewContext } from '../view-context.ts';
import { bucketSql, localSql, rangeSql } from '../date-range.ts';
import type { Entity } from '../entities.ts';
import { andSql, eventFiltersParam, type EventFilters } from '../filters.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { intervalParam, rangeParam, type RawParams } from '../params.ts';
import type { Interval, LocalRange } from '../date-range.ts';
import { bucketStarts } from './buckets.ts';
import { personsUrl, rangeParams } from './links.ts';
import { earliestEvent } from './trend-series.ts';
import {
  actionOf,
  entityPoint,
  labelOf,
  refuseBreakdown,
  seriesEntities,
  seriesWhere,
  type TrendSeries,
} from './series.ts';

/** A stickiness insight request, as parsed from its parameters. */
interface StickinessInsightRequest {
  entities: Entity[];
  interval: Interval;
  range: LocalRange;
  filters: EventFilters;
}

async function parseStickinessInsightRequest(context: ViewContext, raw: RawParams): Promise<StickinessInsightRequest> {
  refuseBreakdown(raw, 'Stickiness');
  const entities = await seriesEntities(context, raw);
  const interval = intervalParam(raw);
  const range = rangeParam(raw, context, interval);
  return { entities, interval, range, filters: await eventFiltersParam(context, raw) };
}

export async function stickinessInsight(context: ViewContext, raw: RawParams): Promise<TrendSeries[]> {
  const { entities, interval, range: requested, filters } = await parseStickinessInsightRequest(context, raw);
  const series: TrendSeries[] = [];
  for (const entity of entities) {
    const where = [...seriesWhere(context, filters, entity), sql`e.person_key > 0`];
    const from =
      requested.from ??
      (await earliestEvent({
        context,
        where,
        measure: { kind: 'aggregate', value: sql`count(*)` },
        group: sql`''`,
        interval,
      }));
    const intervals = from ? bucketStarts(from, new Date(requested.to.getTime() - 1), interval).length : 0;
    const bucket = bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval);
    // Persons do not cross slices: each slice's persons per count add up.
    const parts = await acrossSlices(
      context,
      async (slice) =>
        (
          await sql<{ n: number; persons: number }>`
      select s.n, count(*) as persons from (
        select e.person_key as person_id, count(distinct ${bucket}) as n
        from events e where ${andSql([...where, rangeSql(sql.ref('e.timestamp'), requested, context.timezone), slice])}
        group by e.person_key
      ) s group by s.n`.execute(context.db)
        ).rows,
    );
    const rows = sumRows(parts, ['n'], ['persons']);
    const byCount = new Map(rows.map((row) => [Number(row.n), Number(row.persons)]));
    const days = Array.from({ length: intervals }, (_, i) => i + 1);
    const data = days.map((n) => byCount.get(n) ?? 0);
    series.push({
      action: actionOf(entity),
      label: labelOf(entity),
      count: data.reduce((total, value) => total + value, 0),
      data,
      days,
      labels: days.map((n) => `${n} ${interval}${n === 1 ? '' : 's'}`),
      persons_urls: days.map((n) => ({
        url: personsUrl(context.teamId, 'stickiness', raw, {
          ...entityPoint(entity),
          ...rangeParams(requested),
          stickiness_days: n,
        }),
      })),
    });
  }
  return series;
}
