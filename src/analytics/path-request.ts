// What a paths request is, read once from its parameters (the persons view's and the insight's):
// which events become path items and how, the range and filters, the cut of each session, and the
// funnel step a funnel path follows. The SQL of its nodes is path-nodes.ts's.
import { AppError, validationError } from '../errors.ts';
import type { LocalRange } from './date-range.ts';
import { eventFiltersParam, type EventFilters } from './filters.ts';
import { parseFunnel, stepSelectionParam, type FunnelSpec, type StepSelection } from './funnel-request.ts';
import { choiceParam, intParam, jsonParam, rangeParam, stringParam, type RawParams } from './params.ts';
import type { PathCut } from './path-sessions.ts';
import type { ViewContext } from './view-context.ts';

const EVENT_TYPES = ['$pageview', '$screen', 'custom_event', 'hogql'];
const FUNNEL_PATHS = ['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'] as const;

/** The events that become path items: every event, or those of the listed kinds and names. */
export interface PathItemTypes {
  all: boolean;
  pageviews: boolean;
  screens: boolean;
  customEvents: boolean;
  /** `include_custom_events`: event names. */
  custom: string[];
}

/**
 * `funnel_paths`: the persons of `funnel_filter`'s step `step`, each with only the events after
 * (or before, or between it and the preceding step) the time their best attempt reached it.
 */
export interface FunnelPath {
  kind: (typeof FUNNEL_PATHS)[number];
  funnel: FunnelSpec;
  /** `funnel_step` of the funnel filter (negative: a drop-off). */
  step: number;
  selection: StepSelection;
}

export interface PathRequest {
  cut: PathCut;
  /** `exclude_events`: items left out. */
  excluded: string[];
  range: LocalRange;
  types: PathItemTypes;
  filters: EventFilters;
  funnelPath: FunnelPath | null;
  /** `path_groupings`: wildcard patterns (`/product/*`) an item matching becomes. */
  groupings: string[];
}

function stringList(raw: RawParams, key: string): string[] {
  const value = jsonParam(raw, key) ?? [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw validationError('Expected a list of strings.', key);
  return value as string[];
}

export async function parsePathRequest(context: ViewContext, raw: RawParams): Promise<PathRequest> {
  const stepLimit = intParam(raw, 'step_limit', { min: 1, max: 100 }) ?? 5;
  const startPoint = stringParam(raw, 'start_point');
  const endPoint = stringParam(raw, 'end_point');
  const excluded = stringList(raw, 'exclude_events');
  const range = rangeParam(raw, context, 'day');
  const types = itemTypesParam(raw);
  const filters = await eventFiltersParam(context, raw);
  const funnelPath = await funnelPathParam(context, raw);
  const groupings = stringList(raw, 'path_groupings');
  return { cut: { stepLimit, startPoint, endPoint }, excluded, range, types, filters, funnelPath, groupings };
}

function itemTypesParam(raw: RawParams): PathItemTypes {
  const types = stringList(raw, 'include_event_types');
  const unknown = types.find((type) => !EVENT_TYPES.includes(type));
  if (unknown !== undefined)
    throw validationError(`"${unknown}" is not a valid choice.`, 'include_event_types', 'invalid_choice');
  if (types.includes('hogql')) throw validationError('HogQL path items are not supported.', 'include_event_types');
  const custom = stringList(raw, 'include_custom_events');
  return {
    all: types.length === 0 && custom.length === 0,
    pageviews: types.includes('$pageview'),
    screens: types.includes('$screen'),
    customEvents: types.includes('custom_event'),
    custom,
  };
}

async function funnelPathParam(context: ViewContext, raw: RawParams): Promise<FunnelPath | null> {
  if (stringParam(raw, 'funnel_paths') === undefined) return null;
  const kind = choiceParam(raw, 'funnel_paths', FUNNEL_PATHS, 'funnel_path_after_step');
  const filter = jsonParam(raw, 'funnel_filter');
  if (filter === undefined) throw validationError('This field is required.', 'funnel_filter', 'required');
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw validationError('funnel_filter must be an object.', 'funnel_filter');
  const funnelRaw = filter as RawParams;
  try {
    const funnel = await parseFunnel(funnelRaw, context);
    const step = intParam(funnelRaw, 'funnel_step');
    if (step === undefined) throw validationError('funnel_filter needs a funnel_step.', 'funnel_filter', 'required');
    const selection = stepSelectionParam(funnelRaw, funnel.steps.length);
    // Unordered attempts carry no per-step times.
    if (funnel.order === 'unordered')
      throw validationError('Funnel paths need an ordered or strict funnel.', 'funnel_filter');
    if (kind === 'funnel_path_between_steps' && reachedStepOf(step) < 2)
      throw validationError('There is no step before the first one.', 'funnel_filter');
    return { kind, funnel, step, selection };
  } catch (error) {
    // The funnel's own keys live inside funnel_filter.
    if (error instanceof AppError && error.status === 400) throw validationError(error.detail, 'funnel_filter');
    throw error;
  }
}

/** The step (1-based) whose time a funnel path is cut at: N, or for a drop-off -N the last one reached, N-1. */
export function reachedStepOf(step: number): number {
  return step > 0 ? step : -step - 1;
}
