// The funnel insight (`/insights/funnel/`): each step's count of persons who reached it, with the
// conversion times from the step before and links to the funnel persons view (`funnel_step=N`
// converted, `-N` dropped); per breakdown value a list of such steps; with
// `funnel_viz_type=trends` the conversion rate of each entrance period.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import {
  breakdownValueSql,
  hasBreakdown,
  insightBreakdownParam,
  type BreakdownValue,
  type InsightBreakdown,
} from '../breakdowns.ts';
import { formatLocal, type Interval } from '../date-range.ts';
import type { Entity } from '../entities.ts';
import { isTrendsMode, parseFunnel, stepSpanParam, type FunnelSpec, type StepSpan } from '../funnel-request.ts';
import { attemptsWithExclusionsSql, firstTouchMembersSql, firstTouchSql } from '../funnel-steps.ts';
import { stringParam, type RawParams } from '../params.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import type { ViewContext } from '../view-context.ts';
import { bucketStarts, dayText, labelText, localFromText } from './buckets.ts';
import { stepNumbers, stepNumbersWithin, type StepNumbers } from './funnel-counts.ts';
import { personsUrl, rangeParams } from './links.ts';
import { bucketKey, textSql } from './trend-series.ts';
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

/** A funnel insight request, as parsed from its parameters. */
interface FunnelInsightRequest {
  funnel: FunnelSpec;
  view: { kind: 'steps'; breakdown: InsightBreakdown | null } | { kind: 'trends'; span: StepSpan };
}

async function parseFunnelInsightRequest(context: ViewContext, raw: RawParams): Promise<FunnelInsightRequest> {
  if (stringParam(raw, 'funnel_viz_type') === 'time_to_convert')
    throw validationError('funnel_viz_type=time_to_convert is not supported.', 'funnel_viz_type');
  const trends = isTrendsMode(raw);
  const funnel = await parseFunnel(raw, context);
  if (trends) {
    if (hasBreakdown(raw))
      throw validationError('Breakdowns are not supported with funnel_viz_type=trends.', 'breakdown');
    return { funnel, view: { kind: 'trends', span: stepSpanParam(raw, funnel.steps.length) } };
  }
  return { funnel, view: { kind: 'steps', breakdown: await insightBreakdownParam(context, raw, false) } };
}

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

async function stepsInsight(
  context: ViewContext,
  raw: RawParams,
  spec: FunnelSpec,
  breakdown: InsightBreakdown | null,
): Promise<FunnelStep[] | FunnelStep[][]> {
  if (breakdown === null) {
    const numbers = await stepNumbers(context, spec, (persons) => ({ from: sql`(${persons}) f`, group: sql`''` }));
    return stepsOf(context, raw, spec, numbers.get(''), {});
  }
  const { type, groups } = breakdown;
  if (Array.isArray(groups)) {
    // Cohorts and everyone in one pass over the funnel's persons: each cohort's entrants are a
    // left join (their first-touch rows), and each group's counts a filter of the same rows.
    const numbers = await stepNumbersWithin(context, spec, groups.length, (persons, scan) => {
      const joins: RawBuilder<unknown>[] = [];
      const within = groups.map((group, i) => {
        if (group.id === 'all') return null;
        const members = sql.ref(`m${i}`);
        const filter: BreakdownValue = { kind: 'cohort', filter: group.filter };
        joins.push(
          sql`left join (${firstTouchMembersSql(context, spec, scan, filter)}) ${members} on ${sql.ref(`m${i}.person_id`)} = f.person_id`,
        );
        return sql`${sql.ref(`m${i}.person_id`)} is not null`;
      });
      return { from: sql`(${persons}) f ${sql.join(joins, sql` `)}`, within };
    });
    return groups.map((group, i) => {
      const point = group.id === 'all' ? {} : { breakdown_type: type, funnel_step_breakdown: group.id };
      return stepsOf(context, raw, spec, numbers[i], point).map((step) => ({
        ...step,
        breakdown: group.id,
        breakdown_value: group.id,
      }));
    });
  }
  const column = breakdownValueSql(groups.type, groups.key);
  const numbers = await stepNumbers(context, spec, (persons, scan) => ({
    from: sql`(${persons}) f join (${firstTouchSql(context, spec, scan, column)}) b on b.person_id = f.person_id`,
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
async function trendsInsight(
  context: ViewContext,
  raw: RawParams,
  spec: FunnelSpec,
  { from, to }: StepSpan,
): Promise<FunnelTrend[]> {
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
      from (${attemptsWithExclusionsSql(context, spec, { slice, requiredStep: from, byPeriod: true })}) a
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
  const { funnel, view } = await parseFunnelInsightRequest(context, raw);
  return view.kind === 'trends'
    ? trendsInsight(context, raw, funnel, view.span)
    : stepsInsight(context, raw, funnel, view.breakdown);
}
