// What the insights screen asks herd's insight endpoints (/api/projects/:id/insights/…), and the
// insight as its route and a saved insight carry it; how an answer reads is charts/insight-result.tsx.
import type { Query } from '../api/types.ts';
import { emptyFilters, filterGroup, filterList, filterStateOf, type FilterState } from '../filters/filter-model.ts';

export type InsightKind = 'trends' | 'stickiness' | 'lifecycle' | 'funnel' | 'retention' | 'paths';

export const INSIGHT_KINDS: Array<[kind: InsightKind, label: string]> = [
  ['trends', 'Trends'],
  ['funnel', 'Funnel'],
  ['retention', 'Retention'],
  ['lifecycle', 'Lifecycle'],
  ['stickiness', 'Stickiness'],
  ['paths', 'Paths'],
];

/** The `insight` of a route or a saved insight, as the platform names the kinds. */
const KIND_NAMES: Record<InsightKind, string> = {
  trends: 'TRENDS',
  funnel: 'FUNNELS',
  retention: 'RETENTION',
  lifecycle: 'LIFECYCLE',
  stickiness: 'STICKINESS',
  paths: 'PATHS',
};

export interface InsightSeries {
  event: string;
  /** Trends only: how events become a number (`total`, `dau`, …). */
  math: string;
  filters: FilterState;
}

/** What the insights screen shows: everything its route and a saved insight carry. */
export interface InsightState {
  kind: InsightKind;
  series: InsightSeries[];
  /** Retention: the event that counts as coming back ('' for the first series' own). */
  returning: string;
  /** Trends, stickiness, lifecycle: the interval; retention: the period. Lowercase. */
  interval: string;
  dateFrom: string;
  dateTo: string;
  breakdown: string;
  breakdownType: 'event' | 'person';
  filters: FilterState;
}

export const newSeries = (event = ''): InsightSeries => ({ event, math: 'total', filters: emptyFilters() });

export const defaultInsight = (): InsightState => ({
  kind: 'trends',
  series: [newSeries('$pageview')],
  returning: '',
  interval: 'day',
  dateFrom: '-7d',
  dateTo: '',
  breakdown: '',
  breakdownType: 'event',
  filters: emptyFilters(),
});

/** Which controls an insight kind has. */
export const KIND_CONTROLS: Record<
  InsightKind,
  { series: boolean; interval: boolean; breakdown: boolean; dateFrom: boolean }
> = {
  trends: { series: true, interval: true, breakdown: true, dateFrom: true },
  stickiness: { series: true, interval: true, breakdown: false, dateFrom: true },
  lifecycle: { series: true, interval: true, breakdown: false, dateFrom: true },
  funnel: { series: true, interval: false, breakdown: true, dateFrom: true },
  retention: { series: false, interval: true, breakdown: false, dateFrom: false },
  paths: { series: false, interval: false, breakdown: false, dateFrom: true },
};

export function eventNames(state: InsightState): string[] {
  return state.series.map((series) => series.event.trim()).filter((name) => name !== '');
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The insight as its endpoint's parameters, values as the endpoint takes them (structured ones as
 * JSON, not yet encoded), and `insight` naming the kind: what a route and a saved insight hold.
 */
export function insightFilters(state: InsightState): Record<string, unknown> {
  const controls = KIND_CONTROLS[state.kind];
  const filters: Record<string, unknown> = { insight: KIND_NAMES[state.kind] };
  const series = state.series.filter((item) => item.event.trim() !== '');
  if (controls.series) {
    filters.events = series.map((item, order) => {
      const properties = filterList(item.filters);
      return {
        id: item.event.trim(),
        type: 'events',
        order,
        ...(state.kind === 'trends' && item.math !== 'total' ? { math: item.math } : {}),
        ...(properties.length > 0 ? { properties } : {}),
      };
    });
  }
  if (state.kind === 'retention') {
    const target = state.series[0]?.event.trim() || '$pageview';
    filters.target_entity = { id: target, type: 'events' };
    filters.returning_entity = { id: state.returning.trim() || target, type: 'events' };
    filters.period = capitalized(state.interval);
  } else if (controls.interval) filters.interval = state.interval;
  if (state.kind === 'stickiness') filters.shown_as = 'Stickiness';
  if (state.kind === 'lifecycle') filters.shown_as = 'Lifecycle';
  if (controls.dateFrom && state.dateFrom.trim() !== '') filters.date_from = state.dateFrom.trim();
  if (state.dateTo.trim() !== '') filters.date_to = state.dateTo.trim();
  if (controls.breakdown && state.breakdown.trim() !== '') {
    filters.breakdown = state.breakdown.trim();
    filters.breakdown_type = state.breakdownType;
  }
  const group = filterGroup({ ...state.filters, cohortId: '' });
  if (group) filters.properties = group;
  return filters;
}

/** Filters as query parameters: text stays text, anything else is its JSON. */
export function filtersQuery(filters: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(filters)
      .filter(([, value]) => value !== undefined && value !== null)
      .map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

/** Query parameters (a route's) as filters: a value that opens a JSON list or object is read as JSON. */
export function queryFilters(query: URLSearchParams): Record<string, unknown> {
  const filters: Record<string, unknown> = {};
  for (const [name, value] of query) {
    if (/^\s*[[{]/.test(value)) {
      try {
        filters[name] = JSON.parse(value);
        continue;
      } catch {
        // Not JSON after all: kept as the text it is.
      }
    }
    filters[name] = value;
  }
  return filters;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const textOf = (value: unknown) => (typeof value === 'string' ? value : '');

/** The insight that filters describe (a route's or a saved insight's); what they leave out is the default. */
export function insightStateOf(filters: Record<string, unknown>): InsightState {
  const state = defaultInsight();
  const named = Object.entries(KIND_NAMES).find(([, name]) => name === String(filters.insight ?? '').toUpperCase());
  if (named) state.kind = named[0] as InsightKind;
  else if (filters.shown_as === 'Stickiness') state.kind = 'stickiness';
  else if (filters.shown_as === 'Lifecycle') state.kind = 'lifecycle';
  if (Array.isArray(filters.events)) {
    const series = filters.events.filter(isObject).map((entity) => ({
      event: typeof entity.id === 'string' ? entity.id : '',
      math: typeof entity.math === 'string' ? entity.math : 'total',
      filters: filterStateOf(entity.properties),
    }));
    if (series.length > 0) state.series = series;
  }
  if (state.kind === 'retention') {
    const target = isObject(filters.target_entity) ? textOf(filters.target_entity.id) : '';
    const returning = isObject(filters.returning_entity) ? textOf(filters.returning_entity.id) : '';
    if (target) state.series = [newSeries(target)];
    state.returning = returning && returning !== target ? returning : '';
    if (typeof filters.period === 'string') state.interval = filters.period.toLowerCase();
  }
  if (typeof filters.interval === 'string') state.interval = filters.interval;
  if (typeof filters.date_from === 'string') state.dateFrom = filters.date_from;
  state.dateTo = textOf(filters.date_to);
  state.breakdown = Array.isArray(filters.breakdown) ? textOf(filters.breakdown[0]) : textOf(filters.breakdown);
  state.breakdownType = filters.breakdown_type === 'person' ? 'person' : 'event';
  state.filters = filterStateOf(filters.properties);
  return state;
}

const ENDPOINTS: Record<InsightKind, string> = {
  trends: 'trend',
  stickiness: 'trend',
  lifecycle: 'trend',
  funnel: 'funnel',
  retention: 'retention',
  paths: 'path',
};

/** The endpoint and query string of an insight: its filters but `insight`, as the route carries them. */
export function insightRequest(projectId: number, state: InsightState): { path: string; query: Query } {
  const { insight: _insight, ...parameters } = filtersQuery(insightFilters(state));
  return { path: `/api/projects/${projectId}/insights/${ENDPOINTS[state.kind]}/`, query: parameters };
}
