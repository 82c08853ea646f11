// The canonical analytical requests (each view family, its engines and breakdowns) over a small
// fixed data set, and a database that records the statements they run: the SQL snapshots
// (test/snapshots/analytics-sql.test.ts) and the Citus plans test (test/integration/citus-plans.test.ts)
// read the same requests.
import assert from 'node:assert/strict';
import type { CompiledQuery } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { setupAnalytics, type AnalyticsContext } from './analytics-factories.ts';
import { getInsight, makeJourneys } from './insights.ts';

const steps = [
  { id: '$pageview', type: 'events', order: 0 },
  { id: 'signup', type: 'events', order: 1 },
  { id: 'purchase', type: 'events', order: 2 },
];
const range = { date_from: '2024-01-01', date_to: '2024-01-19' };
const pageviews = (math = 'total') => [{ id: '$pageview', type: 'events', order: 0, math }];
const signup = { id: 'signup', type: 'events' };

/** Each case: the view (`insights/<name>` or `persons/<name>`) and its query parameters. */
export function cases(cohort: number): Record<string, [string, Record<string, unknown>]> {
  const funnel = { events: steps, ...range };
  return {
    'funnel-insight-ordered': ['insights/funnel', funnel],
    'funnel-insight-strict': ['insights/funnel', { ...funnel, funnel_order_type: 'strict' }],
    'funnel-insight-unordered': ['insights/funnel', { ...funnel, funnel_order_type: 'unordered' }],
    'funnel-insight-exclusion': [
      'insights/funnel',
      { ...funnel, exclusions: [{ id: 'logout', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }] },
    ],
    'funnel-insight-breakdown': ['insights/funnel', { ...funnel, breakdown: 'browser', breakdown_type: 'event' }],
    'funnel-insight-cohort': ['insights/funnel', { ...funnel, breakdown: [cohort, 'all'], breakdown_type: 'cohort' }],
    'funnel-insight-trends': [
      'insights/funnel',
      { ...funnel, funnel_viz_type: 'trends', funnel_from_step: 0, funnel_to_step: 1 },
    ],
    'funnel-persons-step': ['persons/funnel', { ...funnel, funnel_step: 2 }],
    'funnel-persons-dropoff': ['persons/funnel', { ...funnel, funnel_step: -3, funnel_order_type: 'strict' }],
    'funnel-persons-breakdown': [
      'persons/funnel',
      { ...funnel, funnel_step: 1, breakdown: 'browser', funnel_step_breakdown: 'Chrome' },
    ],
    'funnel-persons-cohort': [
      'persons/funnel',
      { ...funnel, funnel_step: 1, breakdown_type: 'cohort', funnel_step_breakdown: cohort },
    ],
    'funnel-persons-trends': [
      'persons/funnel',
      {
        ...funnel,
        funnel_viz_type: 'trends',
        entrance_period_start: '2024-01-02 00:00:00',
        drop_off: 'true',
        funnel_from_step: 0,
        funnel_to_step: 2,
      },
    ],
    'funnel-correlation-persons': [
      'persons/funnel/correlation',
      {
        ...funnel,
        funnel_correlation_person_entity: { id: 'logout', type: 'events' },
        funnel_correlation_person_converted: 'true',
      },
    ],
    'trends-insight-total': ['insights/trend', { events: pageviews(), ...range }],
    'trends-insight-dau-breakdown': [
      'insights/trend',
      { events: pageviews('dau'), ...range, breakdown: 'browser', breakdown_type: 'event' },
    ],
    'trends-insight-weekly-active': ['insights/trend', { events: pageviews('weekly_active'), ...range }],
    'trends-insight-cohort': [
      'insights/trend',
      { events: pageviews(), ...range, breakdown: [cohort, 'all'], breakdown_type: 'cohort' },
    ],
    'trends-insight-person-breakdown': [
      'insights/trend',
      { events: pageviews(), ...range, breakdown: 'plan', breakdown_type: 'person' },
    ],
    'trends-insight-cumulative': [
      'insights/trend',
      { events: pageviews('dau'), ...range, display: 'ActionsLineGraphCumulative' },
    ],
    'trends-insight-aggregated': ['insights/trend', { events: pageviews(), ...range, display: 'ActionsTable' }],
    'trends-persons': [
      'persons/trends',
      { events: pageviews(), entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-02' },
    ],
    'trends-persons-breakdown': [
      'persons/trends',
      {
        events: pageviews(),
        entity_order: 0,
        ...range,
        breakdown: 'browser',
        breakdown_type: 'event',
        breakdown_value: 'Chrome',
      },
    ],
    'trends-persons-cohort': [
      'persons/trends',
      { events: pageviews(), entity_order: 0, ...range, breakdown_type: 'cohort', breakdown_value: String(cohort) },
    ],
    'stickiness-insight': ['insights/trend', { events: pageviews(), ...range, shown_as: 'Stickiness' }],
    'stickiness-persons': [
      'persons/stickiness',
      { events: pageviews(), entity_order: 0, ...range, stickiness_days: 2 },
    ],
    'lifecycle-insight-daily': ['insights/trend', { events: pageviews(), ...range, shown_as: 'Lifecycle' }],
    'lifecycle-insight-weekly': [
      'insights/trend',
      { events: pageviews(), ...range, shown_as: 'Lifecycle', interval: 'week' },
    ],
    'lifecycle-persons': [
      'persons/lifecycle',
      { events: pageviews(), ...range, target_date: '2024-01-03', lifecycle_type: 'returning' },
    ],
    'retention-insight-recurring': ['insights/retention', { target_entity: signup, date_to: '2024-01-19' }],
    'retention-insight-first-time': [
      'insights/retention',
      {
        target_entity: signup,
        returning_entity: { id: '$pageview', type: 'events' },
        retention_type: 'retention_first_time',
        period: 'Week',
        date_to: '2024-01-19',
      },
    ],
    'retention-persons': ['persons/retention', { target_entity: signup, date_to: '2024-01-19', selected_interval: 2 }],
    'path-insight': ['insights/path', { ...range }],
    'path-insight-start-end': [
      'insights/path',
      { ...range, start_point: '/home', end_point: 'purchase', include_event_types: ['$pageview', 'custom_event'] },
    ],
    'path-insight-funnel': [
      'insights/path',
      {
        ...range,
        funnel_paths: 'funnel_path_between_steps',
        funnel_filter: { events: steps, ...range, funnel_step: 3 },
      },
    ],
    'path-persons': ['persons/path', { ...range, path_start_key: '1_/home', path_end_key: '2_signup' }],
  };
}

/** A database that records the queries run through `sql` templates (the views' statements). */
export function recording(db: Db, into: CompiledQuery[]): Db {
  return new Proxy(db, {
    get(target, key) {
      if (key === 'getExecutor') {
        const executor = target.getExecutor();
        return () =>
          new Proxy(executor, {
            get(inner, innerKey) {
              if (innerKey === 'executeQuery') {
                return (query: CompiledQuery, ...rest: unknown[]) => {
                  // The views' statements read events; access checks and person loading do not.
                  if (/\bevents\b/.test(query.sql)) into.push(query);
                  return (inner.executeQuery as (...args: unknown[]) => unknown)(query, ...rest);
                };
              }
              const value = Reflect.get(inner, innerKey, inner);
              return typeof value === 'function' ? value.bind(inner) : value;
            },
          });
      }
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The data set of the cases: two journeys and a static cohort; answers the context and the cohort's id. */
export async function setupCases(): Promise<{ a: AnalyticsContext; cohort: number }> {
  const a = await setupAnalytics();
  await makeJourneys(a, {
    alice: {
      properties: { plan: 'pro' },
      events: [
        ['$pageview', '2024-01-02T10:00:00Z', { browser: 'Chrome', $current_url: '/home' }],
        ['signup', '2024-01-02T10:05:00Z'],
        ['purchase', '2024-01-03T10:00:00Z'],
      ],
    },
    bob: [
      ['$pageview', '2024-01-04T10:00:00Z', { browser: 'Firefox', $current_url: '/home' }],
      ['logout', '2024-01-04T10:01:00Z'],
      ['signup', '2024-01-04T10:05:00Z'],
    ],
  });
  const res = await a.ctx.app.inject({
    method: 'POST',
    url: `/api/projects/${a.teamId}/cohorts/`,
    headers: a.tenant.headers,
    payload: { name: 'Early', is_static: true, distinct_ids: ['alice'] },
  });
  assert.equal(res.statusCode, 201, res.body);
  return { a, cohort: res.json().id as number };
}

/** Runs one case through the app: the response's status and body text. */
export async function runCase(
  a: AnalyticsContext,
  view: string,
  params: Record<string, unknown>,
): Promise<{ status: number; text: string }> {
  const [kind, rest] = view.split(/\/(.*)/s);
  return kind === 'insights' ? await getInsight(a, rest, params) : await a.get(rest, params);
}
