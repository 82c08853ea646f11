// What the insights screen asks herd's insight endpoints (/api/projects/:id/insights/…) and how
// each answer becomes one chart model: x labels, and series of numbers each with the persons URL of
// every point.
import type { Person, Query } from '../api/types.ts';

export type InsightKind = 'trends' | 'stickiness' | 'lifecycle' | 'funnel' | 'retention' | 'paths';

export const INSIGHT_KINDS: Array<[kind: InsightKind, label: string]> = [
  ['trends', 'Trends'],
  ['funnel', 'Funnel'],
  ['retention', 'Retention'],
  ['lifecycle', 'Lifecycle'],
  ['stickiness', 'Stickiness'],
  ['paths', 'Paths'],
];

export interface InsightForm {
  kind: InsightKind;
  events: string;
  math: string;
  interval: string;
  dateFrom: string;
  dateTo: string;
}

export interface ChartSeries {
  label: string;
  values: number[];
  /** The persons view of each point, as the API gave it (a path of this project), or null. */
  urls: Array<string | null>;
}

export interface ChartModel {
  labels: string[];
  series: ChartSeries[];
  style: 'line' | 'bars';
}

export function eventNames(form: InsightForm): string[] {
  return form.events
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}

/** The endpoint and query string of an insight. */
export function insightRequest(projectId: number, form: InsightForm): { path: string; query: Query } {
  const base = `/api/projects/${projectId}/insights`;
  const names = eventNames(form);
  const dates = { date_from: form.dateFrom.trim(), date_to: form.dateTo.trim() };
  const entities = (math?: string) =>
    JSON.stringify(names.map((id, order) => ({ id, type: 'events', order, ...(math ? { math } : {}) })));
  switch (form.kind) {
    case 'trends':
      return { path: `${base}/trend/`, query: { events: entities(form.math), interval: form.interval, ...dates } };
    case 'stickiness':
      return {
        path: `${base}/trend/`,
        query: { events: entities(), interval: form.interval, shown_as: 'Stickiness', ...dates },
      };
    case 'lifecycle':
      return {
        path: `${base}/trend/`,
        query: { events: entities(), interval: form.interval, shown_as: 'Lifecycle', ...dates },
      };
    case 'funnel':
      return { path: `${base}/funnel/`, query: { events: entities(), interval: form.interval, ...dates } };
    case 'retention': {
      const target = { id: names[0] ?? '$pageview', type: 'events' };
      const returning = { id: names[1] ?? target.id, type: 'events' };
      const period = form.interval.charAt(0).toUpperCase() + form.interval.slice(1);
      return {
        path: `${base}/retention/`,
        query: {
          target_entity: JSON.stringify(target),
          returning_entity: JSON.stringify(returning),
          period,
          date_to: dates.date_to,
        },
      };
    }
    case 'paths':
      return { path: `${base}/path/`, query: dates };
  }
}

interface TrendSeries {
  label?: string;
  data?: number[];
  labels?: string[];
  days?: string[];
  breakdown_value?: unknown;
  status?: string;
  persons_urls?: Array<{ url?: string } | null>;
}

interface FunnelStep {
  name?: string;
  custom_name?: string | null;
  order?: number;
  count?: number;
  breakdown_value?: unknown;
  converted_people_url?: string | null;
  dropped_people_url?: string | null;
}

interface RetentionRow {
  label?: string;
  date?: string;
  values?: Array<{ count?: number; people_url?: string }>;
}

interface PathEdge {
  source?: string;
  target?: string;
  value?: number;
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function trendModel(result: TrendSeries[], style: ChartModel['style']): ChartModel {
  const first = result[0];
  const labels = first?.labels ?? first?.days ?? (first?.data ?? []).map((_, index) => String(index + 1));
  const series = result.map((item) => {
    const parts = [
      item.label ?? 'Series',
      item.breakdown_value !== undefined ? text(item.breakdown_value) : null,
      item.status ?? null,
    ];
    return {
      label: parts.filter((part) => part !== null && part !== '').join(' · '),
      values: item.data ?? [],
      urls: (item.data ?? []).map((_, index) => item.persons_urls?.[index]?.url ?? null),
    };
  });
  return { labels, series, style };
}

function funnelModel(result: FunnelStep[] | FunnelStep[][]): ChartModel {
  const groups: FunnelStep[][] =
    result.length > 0 && Array.isArray(result[0]) ? (result as FunnelStep[][]) : [result as FunnelStep[]];
  const steps = groups[0] ?? [];
  const labels = steps.map((step, index) => `${(step.order ?? index) + 1}. ${step.custom_name || step.name || 'step'}`);
  const series: ChartSeries[] = [];
  for (const group of groups) {
    const suffix =
      groups.length > 1 && group[0]?.breakdown_value !== undefined ? ` · ${text(group[0].breakdown_value)}` : '';
    series.push({
      label: `Converted${suffix}`,
      values: group.map((step) => step.count ?? 0),
      urls: group.map((step) => step.converted_people_url ?? null),
    });
    series.push({
      label: `Dropped off${suffix}`,
      values: group.map((step, index) =>
        index === 0 ? 0 : Math.max(0, (group[index - 1].count ?? 0) - (step.count ?? 0)),
      ),
      urls: group.map((step) => step.dropped_people_url ?? null),
    });
  }
  return { labels, series, style: 'bars' };
}

function retentionModel(result: RetentionRow[], period: string): ChartModel {
  const width = Math.max(0, ...result.map((row) => row.values?.length ?? 0));
  const labels = Array.from({ length: width }, (_, index) => `${period} ${index}`);
  const series = result.map((row) => ({
    label: row.label ?? row.date ?? '',
    values: labels.map((_, index) => row.values?.[index]?.count ?? 0),
    urls: labels.map((_, index) => row.values?.[index]?.people_url ?? null),
  }));
  return { labels, series, style: 'line' };
}

function pathModel(result: PathEdge[], projectId: number, form: InsightForm): ChartModel {
  const edges = [...result].sort((a, b) => (b.value ?? 0) - (a.value ?? 0)).slice(0, 20);
  const persons = (edge: PathEdge) => {
    const query = new URLSearchParams({ path_start_key: edge.source ?? '', path_end_key: edge.target ?? '' });
    if (form.dateFrom.trim()) query.set('date_from', form.dateFrom.trim());
    if (form.dateTo.trim()) query.set('date_to', form.dateTo.trim());
    return `/api/projects/${projectId}/persons/path/?${query.toString()}`;
  };
  return {
    labels: edges.map((edge) => `${edge.source ?? ''} → ${edge.target ?? ''}`),
    series: [{ label: 'Persons', values: edges.map((edge) => edge.value ?? 0), urls: edges.map(persons) }],
    style: 'bars',
  };
}

export function chartModel(form: InsightForm, projectId: number, answer: { result?: unknown }): ChartModel {
  const result = Array.isArray(answer.result) ? answer.result : [];
  switch (form.kind) {
    case 'trends':
    case 'stickiness':
      return trendModel(result as TrendSeries[], 'line');
    case 'lifecycle':
      return trendModel(result as TrendSeries[], 'bars');
    case 'funnel':
      return funnelModel(result as FunnelStep[]);
    case 'retention':
      return retentionModel(result as RetentionRow[], form.interval.charAt(0).toUpperCase() + form.interval.slice(1));
    case 'paths':
      return pathModel(result as PathEdge[], projectId, form);
  }
}

/**
 * The API path of a persons link, refused unless it is a persons view of this project: a link is
 * fetched with the key, so it must never lead anywhere else.
 */
export function personsPath(url: string, projectId: number, origin: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return null;
  }
  if (!parsed.pathname.startsWith(`/api/projects/${projectId}/persons/`)) return null;
  return `${parsed.pathname}${parsed.search}`;
}

/** The persons of a persons view's answer (every analytical envelope, retention's included). */
export function personsOf(answer: unknown): { persons: Person[]; next: string | null } {
  const body = (answer ?? {}) as {
    results?: Array<{ people?: Person[] }>;
    result?: Array<{ person?: Person }>;
    next?: string | null;
  };
  const persons = body.results
    ? body.results.flatMap((entry) => entry.people ?? [])
    : (body.result ?? []).flatMap((entry) => (entry.person ? [entry.person] : []));
  return { persons, next: typeof body.next === 'string' ? body.next : null };
}
