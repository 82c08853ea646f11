// The SQL each canonical analytical view runs, committed beside this file (analytics/<case>.sql):
// a change to a view's SQL shows as a diff of its snapshot. `npm run snapshots` (UPDATE_SNAPSHOTS=1)
// rewrites them; without it a query that differs from its snapshot fails the test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { getInsight, makeJourneys } from '../helpers/insights.ts';

const DIR = path.join(import.meta.dirname, 'analytics');
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

const steps = [
  { id: '$pageview', type: 'events', order: 0 },
  { id: 'signup', type: 'events', order: 1 },
  { id: 'purchase', type: 'events', order: 2 },
];
const range = { date_from: '2024-01-01', date_to: '2024-01-19' };
const pageviews = (math = 'total') => [{ id: '$pageview', type: 'events', order: 0, math }];
const signup = { id: 'signup', type: 'events' };

/** Each case: the view (`insights/<name>` or `persons/<name>`) and its query parameters. */
function cases(cohort: number): Record<string, [string, Record<string, unknown>]> {
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

/** The SQL text with each line trimmed and blank lines dropped (moving a template does not show). */
function shown(queries: CompiledQuery[]): string {
  return queries
    .map((query, i) => {
      const text = query.sql
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join('\n');
      return `-- query ${i + 1}\n${text}\n-- parameters: ${JSON.stringify(query.parameters)}\n`;
    })
    .join('\n');
}

/** A database that records the queries run through `sql` templates (the views' statements). */
function recording(db: Db, into: CompiledQuery[]): Db {
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

describe('analytics SQL snapshots', () => {
  let a: AnalyticsContext;
  let queries: CompiledQuery[];
  let cohort: number;
  before(async () => {
    a = await setupAnalytics();
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
    cohort = res.json().id;
    queries = [];
    // The routes read deps.db at each request: from here on the views' statements are recorded.
    Object.assign(a.ctx.deps, { db: recording(a.ctx.deps.db, queries) });
  });
  after(() => a.ctx.close());

  it('each canonical view runs the SQL of its snapshot', async () => {
    if (UPDATE) fs.mkdirSync(DIR, { recursive: true });
    const failures: string[] = [];
    for (const [name, [view, params]] of Object.entries(cases(cohort))) {
      queries.length = 0;
      const [kind, rest] = view.split(/\/(.*)/s);
      const res =
        kind === 'insights' ? await getInsight(a, rest, params) : await a.get(rest, params as Record<string, unknown>);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      assert.ok(queries.length > 0, `${name} ran no query on events`);
      const text = `-- ${view} ${JSON.stringify(params)}\n\n${shown(queries)}`;
      const file = path.join(DIR, `${name}.sql`);
      if (UPDATE) fs.writeFileSync(file, text);
      else if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) failures.push(name);
    }
    assert.deepEqual(failures, [], 'SQL differs from its snapshot: run `npm run snapshots` and read the diff');
  });
});
