// The funnel insight (`/insights/funnel/`): each step's count of persons who reached it, with the
// conversion times from the step before and links to the funnel persons view (`funnel_step=N`
// converted, `-N` dropped); per breakdown value a list of such steps; with
// `funnel_viz_type=trends` the conversion rate of each entrance period.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import type { ViewContext } from '../view-context.ts';
import { formatLocal, type Interval } from '../date-range.ts';
import type { Entity } from '../entities.ts';
import { filterSql, parseFilter, resolveFilter } from '../filters.ts';
import { firstTouchSql, isTrendsMode } from '../funnel.query.ts';
import { attemptsWithExclusionsSql, parseFunnel, type FunnelSpec } from '../funnel-steps.ts';
import { intParam, jsonParam, stringParam, type RawParams } from '../params.ts';
import { breakdownKey, breakdownValueSql } from '../trends.query.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { bucketStarts, dayText, labelText, localFromText } from './buckets.ts';
import { stepNumbers, type StepNumbers } from './funnel-counts.ts';
import { personsUrl, rangeParams } from './links.ts';
import { bucketKey, textSql } from './trend-series.query.ts';

export interface FunnelStep {
  action_id: string | null;
  name: string;
  custom_name: string | null;
  order: number;
  type: 'events';
  count: number;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  converted_people_url: string;
  dropped_people_url: string | null;
  breakdown?: string | number;
  breakdown_value?: string | number;
}

export interface FunnelTrend {
  count: number;
  data: number[];
  days: string[];
  labels: string[];
  reached_from_step_count: number[];
  reached_to_step_count: number[];
  converted_people_urls: string[];
  dropped_people_urls: string[];
}

const DEFAULT_BREAKDOWN_LIMIT = 25;

function stepsOf(
  context: ViewContext,
  raw: RawParams,
  spec: FunnelSpec,
  numbers: StepNumbers | undefined,
  point: Record<string, unknown>,
): FunnelStep[] {
  const link = (step: number) =>
    personsUrl(context.teamId, 'funnel', raw, { ...rangeParams(spec.range), ...point, funnel_step: step });
  return spec.steps.map((entity: Entity, i) => {
    const k = i + 1;
    return {
      action_id: entity.id,
      name: entity.id ?? 'All events',
      custom_name: entity.customName ?? null,
      order: entity.index,
      type: 'events' as const,
      count: numbers?.counts[i] ?? 0,
      average_conversion_time: numbers?.averages[i] ?? null,
      median_conversion_time: numbers?.medians[i] ?? null,
      converted_people_url: link(k),
      // Everyone who entered did step 1: there is no drop-off before it.
      dropped_people_url: k === 1 ? null : link(-k),
    };
  });
}

interface BreakdownGroup {
  value: string | number;
  /** The first-touch condition the group's persons meet (absent: everyone who entered). */
  condition: RawBuilder<unknown> | null;
  /** `funnel_step_breakdown` of the persons links. */
  linkValue: unknown;
}

async function breakdownGroups(
  context: ViewContext,
  raw: RawParams,
): Promise<BreakdownGroup[] | { column: RawBuilder<unknown>; limit: number }> {
  const type = stringParam(raw, 'breakdown_type') ?? 'event';
  if (type === 'cohort') {
    const listed = raw.breakdown === 'all' ? 'all' : jsonParam(raw, 'breakdown');
    const ids = Array.isArray(listed) ? listed : [listed];
    if (
      ids.length === 0 ||
      !ids.every(
        (id) => id === 'all' || (Number.isInteger(id) && (id as number) > 0 && (id as number) <= 2_147_483_647),
      )
    ) {
      throw validationError('A cohort breakdown is a list of cohort ids (or "all").', 'breakdown');
    }
    return Promise.all(
      ids.map(async (id) => {
        if (id === 'all') return { value: 'all', condition: null, linkValue: undefined };
        const filter = await resolveFilter(
          context,
          parseFilter([{ key: 'id', type: 'cohort', value: id }], 'breakdown'),
          'breakdown',
        );
        return { value: id as number, condition: filterSql(filter, context.teamId), linkValue: id };
      }),
    );
  }
  if (type !== 'event' && type !== 'person')
    throw validationError(`Breakdown type "${type}" is not supported.`, 'breakdown_type');
  return {
    column: breakdownValueSql(type, breakdownKey(raw)),
    limit: intParam(raw, 'breakdown_limit', { min: 1, max: 1000 }) ?? DEFAULT_BREAKDOWN_LIMIT,
  };
}

async function stepsInsight(
  context: ViewContext,
  raw: RawParams,
  spec: FunnelSpec,
): Promise<FunnelStep[] | FunnelStep[][]> {
  if (raw.breakdown === undefined || raw.breakdown === null || raw.breakdown === '') {
    const numbers = await stepNumbers(context, spec, (persons) => ({ from: sql`(${persons}) f`, group: sql`''` }));
    return stepsOf(context, raw, spec, numbers.get(''), {});
  }
  const type = stringParam(raw, 'breakdown_type') ?? 'event';
  const groups = await breakdownGroups(context, raw);
  if (Array.isArray(groups)) {
    return Promise.all(
      groups.map(async (group) => {
        const numbers = await stepNumbers(context, spec, (persons, sliced) => ({
          from: group.condition
            ? sql`(${persons}) f where f.person_id in (select b.person_id from (${firstTouchSql(context, sliced, group.condition)}) b where b.value)`
            : sql`(${persons}) f`,
          group: sql`''`,
        }));
        const point =
          group.linkValue === undefined ? {} : { breakdown_type: type, funnel_step_breakdown: group.linkValue };
        return stepsOf(context, raw, spec, numbers.get(''), point).map((step) => ({
          ...step,
          breakdown: group.value,
          breakdown_value: group.value,
        }));
      }),
    );
  }
  const numbers = await stepNumbers(context, spec, (persons, sliced) => ({
    from: sql`(${persons}) f join (${firstTouchSql(context, sliced, groups.column)}) b on b.person_id = f.person_id`,
    group: sql`b.value`,
  }));
  const values = [...numbers.values()]
    .sort((a, b) => b.counts[0] - a.counts[0] || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .slice(0, groups.limit);
  // The persons view reads funnel_step_breakdown as JSON: a JSON string keeps "", "5" and "[1]" as text.
  return values.map((row) =>
    stepsOf(context, raw, spec, row, { breakdown_type: type, funnel_step_breakdown: JSON.stringify(row.value) }).map(
      (step) => ({ ...step, breakdown: row.value, breakdown_value: row.value }),
    ),
  );
}

/** Conversion from step `funnel_from_step` to `funnel_to_step` of the persons entering in each period. */
async function trendsInsight(context: ViewContext, raw: RawParams, spec: FunnelSpec): Promise<FunnelTrend[]> {
  if (raw.breakdown !== undefined && raw.breakdown !== null && raw.breakdown !== '') {
    throw validationError('Breakdowns are not supported with funnel_viz_type=trends.', 'breakdown');
  }
  const last = spec.steps.length - 1;
  const from = intParam(raw, 'funnel_from_step', { min: 0, max: last }) ?? 0;
  const to = intParam(raw, 'funnel_to_step', { min: 0, max: last }) ?? last;
  if (from > to) throw validationError('funnel_from_step must not be after funnel_to_step.', 'funnel_from_step');
  spec.requiredStep = from;
  // The attempts come sorted by person and period (latest first), as this grouping reads them.
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<{ period: string; reached_from: number; reached_to: number }>`
    select ${textSql(sql.ref('x.period'))} as period,
      count(*) filter (where x.steps >= ${from + 1}) as reached_from,
      count(*) filter (where x.steps >= ${to + 1}) as reached_to
    from (
      select a.person_id, a.period, max(a.steps) as steps
      from (${attemptsWithExclusionsSql(context, { ...spec, slice, byPeriod: true })}) a
      group by a.person_id, a.period
      order by a.person_id, a.period desc
    ) x group by x.period`.execute(context.db)
      ).rows,
  );
  const rows = sumRows(parts, ['period'], ['reached_from', 'reached_to']);
  const byPeriod = new Map(rows.map((row) => [row.period, row]));
  const interval: Interval = spec.interval;
  const first =
    spec.range.from ??
    rows
      .map((row) => localFromText(row.period))
      .reduce<Date | null>((min, t) => (min === null || t < min ? t : min), null);
  const starts = first ? bucketStarts(first, new Date(spec.range.to.getTime() - 1), interval) : [];
  const reachedFrom = starts.map((start) => Number(byPeriod.get(bucketKey(start))?.reached_from ?? 0));
  const reachedTo = starts.map((start) => Number(byPeriod.get(bucketKey(start))?.reached_to ?? 0));
  const link = (start: Date, dropOff: boolean) =>
    personsUrl(context.teamId, 'funnel', raw, {
      ...rangeParams(spec.range),
      funnel_viz_type: 'trends',
      entrance_period_start: formatLocal(start),
      drop_off: dropOff ? 'true' : 'false',
    });
  return [
    {
      count: starts.length,
      data: starts.map((_, i) => (reachedFrom[i] > 0 ? Math.round((reachedTo[i] / reachedFrom[i]) * 10_000) / 100 : 0)),
      days: starts.map((start) => dayText(start, interval)),
      labels: starts.map((start) => labelText(start, interval)),
      reached_from_step_count: reachedFrom,
      reached_to_step_count: reachedTo,
      converted_people_urls: starts.map((start) => link(start, false)),
      dropped_people_urls: starts.map((start) => link(start, true)),
    },
  ];
}

export async function funnelInsight(
  context: ViewContext,
  raw: RawParams,
): Promise<FunnelStep[] | FunnelStep[][] | FunnelTrend[]> {
  if (stringParam(raw, 'funnel_viz_type') === 'time_to_convert')
    throw validationError('funnel_viz_type=time_to_convert is not supported.', 'funnel_viz_type');
  const trends = isTrendsMode(raw);
  const spec = await parseFunnel(raw, context);
  return trends ? trendsInsight(context, raw, spec) : stepsInsight(context, raw, spec);
}
