// The views the analytics bench times: each persons view and insight with the range whose
// count(*) it is compared with (`day` 2024-01-15, `week` the default -7d, `month` Jan 2–31).
export type Range = 'day' | 'week' | 'month';

export interface BenchView {
  label: string;
  range: Range;
  path: string;
  /** The query parameters; a function of the seeded static cohort's id (analytics-seed.ts) when they name it. */
  params: Record<string, unknown> | ((cohort: number) => Record<string, unknown>);
}

/** A view's parameters, given the id of the project's seeded cohort. */
export function paramsOf(view: BenchView, cohort: number): Record<string, unknown> {
  return typeof view.params === 'function' ? view.params(cohort) : view.params;
}

const month = { date_from: '2024-01-02', date_to: '2024-01-31' };
const pageview = { entity_id: '$pageview', entity_type: 'events' };
const steps = [
  { id: '$pageview', order: 0 },
  { id: 'signup', order: 1 },
  { id: 'purchase', order: 2 },
];
const retention = { period: 'Day', total_intervals: '30', date_to: '2024-01-31' };
const pageviewPaths = { include_event_types: ['$pageview'], ...month };

export const ANALYTICS_VIEWS: BenchView[] = [
  {
    label: 'trends persons, one day bucket',
    range: 'day',
    path: 'persons/trends',
    params: { ...pageview, date_from: '2024-01-15', date_to: '2024-01-15' },
  },
  {
    label: 'trends persons (ActionsTable)',
    range: 'week',
    path: 'persons/trends',
    params: { ...pageview, display: 'ActionsTable' },
  },
  {
    label: 'trends persons (ActionsTable)',
    range: 'month',
    path: 'persons/trends',
    params: { ...pageview, display: 'ActionsTable', ...month },
  },
  {
    label: 'stickiness persons, 10 days',
    range: 'month',
    path: 'persons/stickiness',
    params: { ...pageview, stickiness_days: '10', ...month },
  },
  {
    label: 'lifecycle persons, dormant',
    range: 'month',
    path: 'persons/lifecycle',
    params: { events: [{ id: '$pageview' }], target_date: '2024-01-15', lifecycle_type: 'dormant', ...month },
  },
  {
    label: 'funnel persons, 3 steps, step 3',
    range: 'week',
    path: 'persons/funnel',
    params: { events: steps, funnel_step: '3' },
  },
  {
    label: 'funnel persons, 3 steps, step 3',
    range: 'month',
    path: 'persons/funnel',
    params: { events: steps, funnel_step: '3', ...month },
  },
  {
    label: 'funnel persons, 3 steps, drop-off -2',
    range: 'month',
    path: 'persons/funnel',
    params: { events: steps, funnel_step: '-2', ...month },
  },
  {
    label: 'funnel persons, 3 steps, step 3 of a static cohort',
    range: 'month',
    path: 'persons/funnel',
    params: (cohort) => ({
      events: steps,
      funnel_step: '3',
      breakdown_type: 'cohort',
      funnel_step_breakdown: cohort,
      ...month,
    }),
  },
  {
    label: 'retention persons, cohort 0 of 30 days',
    range: 'month',
    path: 'persons/retention',
    params: { ...retention, selected_interval: '0' },
  },
  { label: 'paths persons, pageviews', range: 'month', path: 'persons/path', params: pageviewPaths },
  {
    label: 'trend insight, dau per day',
    range: 'month',
    path: 'insights/trend',
    params: { events: [{ id: '$pageview', math: 'dau' }], ...month },
  },
  {
    label: 'trend insight, total (ActionsTable)',
    range: 'month',
    path: 'insights/trend',
    params: { events: [{ id: '$pageview' }], display: 'ActionsTable', ...month },
  },
  {
    label: 'trend insight, weekly_active per day',
    range: 'month',
    path: 'insights/trend',
    params: { events: [{ id: '$pageview', math: 'weekly_active' }], ...month },
  },
  {
    label: 'stickiness insight',
    range: 'month',
    path: 'insights/trend',
    params: { events: [{ id: '$pageview' }], shown_as: 'Stickiness', ...month },
  },
  {
    label: 'lifecycle insight',
    range: 'month',
    path: 'insights/trend',
    params: { events: [{ id: '$pageview' }], shown_as: 'Lifecycle', ...month },
  },
  { label: 'funnel insight, 3 steps', range: 'month', path: 'insights/funnel', params: { events: steps, ...month } },
  {
    label: 'funnel insight, 3 steps by a static cohort and all',
    range: 'month',
    path: 'insights/funnel',
    params: (cohort) => ({ events: steps, breakdown: [cohort, 'all'], breakdown_type: 'cohort', ...month }),
  },
  {
    label: 'funnel insight, conversion per day',
    range: 'month',
    path: 'insights/funnel',
    params: { events: steps, funnel_viz_type: 'trends', ...month },
  },
  { label: 'retention insight, 30 days', range: 'month', path: 'insights/retention', params: retention },
  { label: 'paths insight, pageviews', range: 'month', path: 'insights/path', params: pageviewPaths },
];
