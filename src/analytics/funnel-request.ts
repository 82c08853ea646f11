// What a funnel request is, read once from its parameters: the steps, exclusions, order, window,
// range and filters (FunnelSpec), and the rules the funnel views share on top of it: which persons
// a step selection (`funnel_step`, `funnel_custom_steps`) means, the `funnel_from_step` …
// `funnel_to_step` span of funnel trends, and whether the request asks for funnel trends.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import type { Interval, LocalRange } from './date-range.ts';
import { entitiesParam, parseEntity, resolveEntities, type Entity } from './entities.ts';
import { propertiesParam, searchParam, type FilterNode } from './filters.ts';
import { choiceParam, intervalParam, intParam, jsonParam, rangeParam, stringParam, type RawParams } from './params.ts';
import type { ViewContext } from './view-context.ts';

const ORDER_TYPES = ['ordered', 'strict', 'unordered'] as const;
const WINDOW_UNITS = ['minute', 'hour', 'day', 'week', 'month'] as const;
const VIZ_TYPES = ['steps', 'trends', 'time_to_convert'] as const;

export type FunnelOrder = (typeof ORDER_TYPES)[number];

/** A funnel as its request defines it. */
export interface FunnelSpec {
  readonly steps: Entity[];
  readonly exclusions: Entity[];
  readonly order: FunnelOrder;
  /** The conversion window as PostgreSQL interval text, e.g. "1209600 seconds" (14 days). */
  readonly window: string;
  readonly range: LocalRange;
  readonly interval: Interval;
  readonly properties: FilterNode | null;
  readonly search: string | undefined;
}

export async function parseFunnel(
  raw: RawParams,
  context: ViewContext,
  extraProperties: FilterNode | null = null,
): Promise<FunnelSpec> {
  const steps = await resolveEntities(context, entitiesParam(raw));
  if (steps.length === 0) throw validationError('A funnel needs at least one step.', 'events', 'required');
  const order = choiceParam(raw, 'funnel_order_type', ORDER_TYPES, 'ordered');
  const exclusionsRaw = jsonParam(raw, 'exclusions');
  if (exclusionsRaw !== undefined && !Array.isArray(exclusionsRaw))
    throw validationError('Expected a list of items.', 'exclusions');
  const exclusions = await resolveEntities(
    context,
    ((exclusionsRaw as unknown[] | undefined) ?? []).map((item, index) => {
      const entity = parseEntity(item, 'exclusions', index);
      const from = entity.fromStep ?? 0;
      const to = entity.toStep ?? steps.length - 1;
      if (from >= to || to > steps.length - 1)
        throw validationError('Exclusion steps must span at least two funnel steps.', 'exclusions');
      // Unordered funnels have no step times to bound a partial exclusion (PostHog refuses them too).
      if (order === 'unordered' && (from !== 0 || to !== steps.length - 1))
        throw validationError('Partial exclusions are not allowed in unordered funnels.', 'exclusions');
      return { ...entity, fromStep: from, toStep: to };
    }),
    'exclusions',
  );
  const days = intParam(raw, 'funnel_window_days', { min: 1, max: 100_000 });
  const count = days ?? intParam(raw, 'funnel_window_interval', { min: 1, max: 100_000 }) ?? 14;
  const unit = days !== undefined ? 'day' : choiceParam(raw, 'funnel_window_interval_unit', WINDOW_UNITS, 'day');
  const interval = intervalParam(raw);
  const range = rangeParam(raw, context, interval);
  const global = await propertiesParam(context, raw);
  const properties: FilterNode | null =
    global && extraProperties ? { type: 'AND', values: [global, extraProperties] } : (global ?? extraProperties);
  return {
    steps,
    exclusions,
    order,
    window: windowText(count, unit),
    range,
    interval,
    properties,
    search: searchParam(raw),
  };
}

const UNIT_SECONDS: Record<Exclude<(typeof WINDOW_UNITS)[number], 'month'>, number> = {
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
};

/**
 * The window as interval text: a fixed length in seconds (a day is 24 hours, as in UTC), months
 * on the calendar. Adding seconds to a timestamptz is plain arithmetic; adding days works in the
 * session's time zone, ~0.25 µs an addition, and the passes add the window to several times an event.
 */
function windowText(count: number, unit: (typeof WINDOW_UNITS)[number]): string {
  return unit === 'month' ? `${count} month` : `${count * UNIT_SECONDS[unit]} seconds`;
}

/** `funnel_viz_type=trends`, or (without a viz type) the line-graph display. */
export function isTrendsMode(raw: RawParams): boolean {
  if (stringParam(raw, 'funnel_viz_type') === undefined) return stringParam(raw, 'display') === 'ActionsLineGraph';
  return choiceParam(raw, 'funnel_viz_type', VIZ_TYPES, 'steps') === 'trends';
}

/**
 * The persons of a step: `funnel_step=N` reached at least step N, `-N` reached step N-1 but not N,
 * `funnel_custom_steps` any of the listed step counts.
 */
export type StepSelection =
  { kind: 'custom'; steps: number[] } | { kind: 'reached'; step: number } | { kind: 'dropped'; before: number };

export function stepSelectionParam(raw: RawParams, stepCount: number): StepSelection {
  const custom = jsonParam(raw, 'funnel_custom_steps');
  if (custom !== undefined) {
    if (
      !Array.isArray(custom) ||
      custom.length === 0 ||
      !custom.every((step) => Number.isInteger(step) && Math.abs(step as number) <= 1000)
    ) {
      throw validationError('Expected a list of step numbers.', 'funnel_custom_steps');
    }
    return { kind: 'custom', steps: custom as number[] };
  }
  const step = intParam(raw, 'funnel_step');
  if (step === undefined)
    throw validationError('Missing both funnel_step and funnel_custom_steps.', 'funnel_step', 'required');
  if (step >= 1) return { kind: 'reached', step };
  // There is no drop-off before the first step.
  if (step > -2)
    throw validationError(
      'funnel_step must be a step number, or -N (N >= 2) for drop-offs before step N.',
      'funnel_step',
    );
  if (-step > stepCount) throw validationError('funnel_step is beyond the last step.', 'funnel_step');
  return { kind: 'dropped', before: -step };
}

/** The fewest steps a selected person reached. */
export function minStepsOf(selection: StepSelection): number {
  if (selection.kind === 'custom') return Math.min(...selection.steps);
  return selection.kind === 'reached' ? selection.step : selection.before - 1;
}

/** The selection as a condition on the steps `f.steps` a person reached. */
export function stepSelectionSql(selection: StepSelection): RawBuilder<unknown> {
  if (selection.kind === 'custom') return sql`f.steps in (${sql.join(selection.steps)})`;
  if (selection.kind === 'reached') return sql`f.steps >= ${selection.step}`;
  return sql`f.steps = ${selection.before - 1}`;
}

/** `funnel_from_step` … `funnel_to_step` (0-based, default the first and the last step) of funnel trends. */
export interface StepSpan {
  from: number;
  to: number;
}

export function stepSpanParam(raw: RawParams, stepCount: number): StepSpan {
  const last = stepCount - 1;
  const from = intParam(raw, 'funnel_from_step', { min: 0, max: last }) ?? 0;
  const to = intParam(raw, 'funnel_to_step', { min: 0, max: last }) ?? last;
  if (from > to) throw validationError('funnel_from_step must not be after funnel_to_step.', 'funnel_from_step');
  return { from, to };
}
