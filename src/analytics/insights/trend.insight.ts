// The trends insight (`/insights/trend/`): one series per entity (and breakdown value), in the
// legacy shape, each point linked to the trends persons view of the same filter. `shown_as`
// answers stickiness or lifecycle instead.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import { breakdownValueSql, insightBreakdownParam, type InsightBreakdown } from '../breakdowns.ts';
import { addInterval, type Interval, type LocalRange } from '../date-range.ts';
import type { Entity } from '../entities.ts';
import { eventFiltersParam, filterSql, type EventFilters } from '../filters.ts';
import { intervalParam, rangeParam, stringParam, type RawParams } from '../params.ts';
import { NON_TIME_SERIES } from '../trends-maths.ts';
import type { ViewContext } from '../view-context.ts';
import { bucketStarts, dayText, labelText } from './buckets.ts';
import { lifecycleInsight } from './lifecycle.insight.ts';
import { personsUrl, rangeParams } from './links.ts';
import { stickinessInsight } from './stickiness.insight.ts';
import { actionOf, entityPoint, labelOf, seriesEntities, seriesWhere, type TrendSeries } from './series.ts';
import {
  bucketKey,
  bucketValues,
  earliestEvent,
  firstSeenValues,
  measureOf,
  rangeValues,
  topGroups,
  type Measure,
  type SeriesQuery,
  type SeriesValues,
} from './trend-series.ts';

const SHOWN_AS = ['Trends', 'Stickiness', 'Lifecycle'];

/** A trends insight request, as parsed from its parameters. */
interface TrendsInsightRequest {
  series: { entity: Entity; measure: Measure }[];
  interval: Interval;
  /** Running totals (`ActionsLineGraphCumulative`). */
  cumulative: boolean;
  /** One number for the whole range (the other non-time-series displays). */
  aggregated: boolean;
  range: LocalRange;
  filters: EventFilters;
  breakdown: InsightBreakdown | null;
}

async function parseTrendsInsightRequest(context: ViewContext, raw: RawParams): Promise<TrendsInsightRequest> {
  const entities = await seriesEntities(context, raw);
  const interval: Interval = intervalParam(raw);
  const display = stringParam(raw, 'display') ?? 'ActionsLineGraph';
  const cumulative = display === 'ActionsLineGraphCumulative';
  const aggregated = !cumulative && NON_TIME_SERIES.includes(display);
  const range = rangeParam(raw, context, interval);
  // The first series' math is checked before the filters and the breakdown, the others after.
  const [first, ...others] = entities;
  const series = [{ entity: first, measure: measureOf(first, interval) }];
  const filters = await eventFiltersParam(context, raw);
  const breakdown = await insightBreakdownParam(context, raw, true);
  for (const entity of others) series.push({ entity, measure: measureOf(entity, interval) });
  return { series, interval, cumulative, aggregated, range, filters, breakdown };
}

interface Group {
  /** The series' breakdown value on the wire, and the persons view's `breakdown_value`. */
  value: string | number | undefined;
  label: string;
  where: RawBuilder<unknown>[];
  /** The SQL value the query groups by; '' when one query answers one group. */
  group: RawBuilder<unknown>;
  key: string;
}

/** The breakdown groups of an entity: none, the top property values, or each listed cohort. */
async function groupsOf(
  context: ViewContext,
  breakdown: TrendsInsightRequest['breakdown'],
  base: SeriesQuery,
  range: LocalRange,
): Promise<Group[]> {
  const whole = { value: undefined, label: '', where: base.where, group: sql`''`, key: '' };
  if (breakdown === null) return [whole];
  const { groups } = breakdown;
  if (Array.isArray(groups)) {
    const numbered = groups.flatMap((group) => (group.id === 'all' ? [] : [group.id]));
    const { rows } = await sql<{ id: number; name: string }>`
      select id, name from cohorts where team_id = ${context.teamId} and id in (${sql.join(numbered.length ? numbered : [0])})`.execute(
      context.db,
    );
    const names = new Map(rows.map((row) => [Number(row.id), row.name]));
    return groups.map((group) =>
      group.id === 'all'
        ? { ...whole, value: 'all', label: 'all users' }
        : {
            ...whole,
            value: group.id,
            label: names.get(group.id) ?? `cohort ${String(group.id)}`,
            where: [...base.where, filterSql(group.filter, context.teamId)],
          },
    );
  }
  const group = breakdownValueSql(groups.type, groups.key);
  const values = await topGroups({ ...base, group }, range, groups.limit);
  return values.map((value) => ({
    value,
    label: value,
    where: [...base.where, sql`${group} in (${sql.join(values)})`],
    group,
    key: value,
  }));
}

function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

async function trendsSeries(context: ViewContext, raw: RawParams): Promise<TrendSeries[]> {
  const request = await parseTrendsInsightRequest(context, raw);
  const { interval, cumulative, aggregated, range: requested } = request;
  const breakdownType = request.breakdown?.type;
  const series: TrendSeries[] = [];
  for (const { entity, measure } of request.series) {
    const base: SeriesQuery = {
      context,
      where: seriesWhere(context, request.filters, entity),
      measure,
      group: sql`''`,
      interval,
    };
    const from = requested.from ?? (await earliestEvent(base));
    const range: LocalRange = { from: from ?? requested.to, to: requested.to };
    const starts = from ? bucketStarts(from, new Date(range.to.getTime() - 1), interval) : [];
    const days = starts.map((start) => dayText(start, interval));
    const labels = starts.map((start) => labelText(start, interval));
    for (const group of await groupsOf(context, request.breakdown, base, range)) {
      const query = { ...base, where: group.where, group: group.group };
      const point = {
        ...entityPoint(entity),
        ...(group.value === undefined ? {} : { breakdown_type: breakdownType, breakdown_value: group.value }),
      };
      const label = group.value === undefined ? labelOf(entity) : `${labelOf(entity)} - ${group.label}`;
      const common = {
        action: actionOf(entity),
        label,
        days,
        labels,
        ...(group.value === undefined ? {} : { breakdown_value: group.value }),
      };
      if (aggregated) {
        const value = starts.length ? ((await rangeValues(query, range)).get(group.key)?.get('') ?? 0) : 0;
        const url = personsUrl(context.teamId, 'trends', raw, { ...point, ...rangeParams(range) });
        series.push({
          ...common,
          count: value,
          data: [],
          aggregated_value: value,
          persons: { url },
          persons_urls: [{ url }],
        });
        continue;
      }
      let values: SeriesValues = new Map();
      if (starts.length) {
        values = cumulative
          ? await firstSeenValues(query, range, addInterval(starts[starts.length - 1], interval, 1))
          : await bucketValues(query, starts);
      }
      const byBucket = values.get(group.key) ?? new Map<string, number>();
      let data = starts.map((start) => byBucket.get(bucketKey(start)) ?? 0);
      if (cumulative) {
        // Active-user maths look back before the range: keys first seen there count from the first point.
        const before = sum([...byBucket].filter(([key]) => key < bucketKey(starts[0])).map(([, value]) => value));
        data = data.map((_, i) => before + sum(data.slice(0, i + 1)));
      }
      const persons_urls = starts.map((start) => ({
        url: personsUrl(context.teamId, 'trends', raw, {
          ...point,
          // A time-series point is its whole bucket; a cumulative one runs from the range start.
          ...(cumulative
            ? rangeParams({ from: range.from, to: addInterval(start, interval, 1) })
            : { date_from: dayText(start, interval), date_to: dayText(start, interval) }),
        }),
      }));
      series.push({ ...common, count: sum(data), data, persons_urls });
    }
  }
  return series;
}

export async function trendInsight(context: ViewContext, raw: RawParams): Promise<TrendSeries[]> {
  const shownAs = stringParam(raw, 'shown_as') ?? 'Trends';
  if (!SHOWN_AS.includes(shownAs))
    throw validationError(`"${shownAs}" is not a valid choice.`, 'shown_as', 'invalid_choice');
  if (shownAs === 'Stickiness') return stickinessInsight(context, raw);
  if (shownAs === 'Lifecycle') return lifecycleInsight(context, raw);
  return trendsSeries(context, raw);
}
