// The trends insight (`/insights/trend/`): one series per entity (and breakdown value), in the
// legacy shape, each point linked to the trends persons view of the same filter. `shown_as`
// answers stickiness or lifecycle instead.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import type { ViewContext } from '../view-context.ts';
import { addInterval, type Interval, type LocalRange } from '../date-range.ts';
import { filterSql, parseFilter, resolveFilter } from '../filters.ts';
import { intervalParam, intParam, jsonParam, rangeParam, stringParam, type RawParams } from '../params.ts';
import { breakdownKey, breakdownValueSql, NON_TIME_SERIES } from '../trends.query.ts';
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
  type SeriesQuery,
  type SeriesValues,
} from './trend-series.query.ts';

const SHOWN_AS = ['Trends', 'Stickiness', 'Lifecycle'];
const DEFAULT_BREAKDOWN_LIMIT = 25;

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
async function groupsOf(context: ViewContext, raw: RawParams, base: SeriesQuery, range: LocalRange): Promise<Group[]> {
  const breakdown = raw.breakdown;
  const whole = { value: undefined, label: '', where: base.where, group: sql`''`, key: '' };
  if (breakdown === undefined || breakdown === null || breakdown === '') return [whole];
  const type = stringParam(raw, 'breakdown_type') ?? 'event';
  if (stringParam(raw, 'breakdown_histogram_bin_count') !== undefined)
    throw validationError('Histogram breakdowns are not supported by the insight.', 'breakdown_histogram_bin_count');
  if (type === 'cohort') {
    const listed = breakdown === 'all' ? ['all'] : jsonParam(raw, 'breakdown');
    const ids = Array.isArray(listed) ? listed : [listed];
    if (
      ids.length === 0 ||
      !ids.every(
        (id) => id === 'all' || (Number.isInteger(id) && (id as number) > 0 && (id as number) <= 2_147_483_647),
      )
    ) {
      throw validationError('A cohort breakdown is a list of cohort ids (or "all").', 'breakdown');
    }
    const numbered = ids.filter((id): id is number => id !== 'all');
    const { rows } = await sql<{ id: number; name: string }>`
      select id, name from cohorts where team_id = ${context.teamId} and id in (${sql.join(numbered.length ? numbered : [0])})`.execute(
      context.db,
    );
    const names = new Map(rows.map((row) => [Number(row.id), row.name]));
    return Promise.all(
      ids.map(async (id) => {
        if (id === 'all') return { ...whole, value: 'all', label: 'all users' };
        const filter = await resolveFilter(
          context,
          parseFilter([{ key: 'id', type: 'cohort', value: id }], 'breakdown'),
          'breakdown',
        );
        return {
          ...whole,
          value: id as number,
          label: names.get(id as number) ?? `cohort ${String(id)}`,
          where: [...base.where, filterSql(filter, context.teamId)],
        };
      }),
    );
  }
  if (type !== 'event' && type !== 'person')
    throw validationError(`Breakdown type "${type}" is not supported.`, 'breakdown_type');
  const limit = intParam(raw, 'breakdown_limit', { min: 1, max: 1000 }) ?? DEFAULT_BREAKDOWN_LIMIT;
  const group = breakdownValueSql(type, breakdownKey(raw));
  const values = await topGroups({ ...base, group }, range, limit);
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

export async function trendsSeries(context: ViewContext, raw: RawParams): Promise<TrendSeries[]> {
  const entities = await seriesEntities(context, raw);
  const interval: Interval = intervalParam(raw);
  const display = stringParam(raw, 'display') ?? 'ActionsLineGraph';
  const cumulative = display === 'ActionsLineGraphCumulative';
  const aggregated = !cumulative && NON_TIME_SERIES.includes(display);
  const requested = rangeParam(raw, context, interval);
  const breakdownType =
    raw.breakdown === undefined || raw.breakdown === '' ? undefined : (stringParam(raw, 'breakdown_type') ?? 'event');
  const series: TrendSeries[] = [];
  for (const entity of entities) {
    const measure = measureOf(entity, interval);
    const base: SeriesQuery = {
      context,
      where: await seriesWhere(context, raw, entity),
      measure,
      group: sql`''`,
      interval,
    };
    const from = requested.from ?? (await earliestEvent(base));
    const range: LocalRange = { from: from ?? requested.to, to: requested.to };
    const starts = from ? bucketStarts(from, new Date(range.to.getTime() - 1), interval) : [];
    const days = starts.map((start) => dayText(start, interval));
    const labels = starts.map((start) => labelText(start, interval));
    for (const group of await groupsOf(context, raw, base, range)) {
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
