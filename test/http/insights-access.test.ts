import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TSchema } from 'typebox';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeEvent, setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { makeKey, makeTenant, makeTenantMember, bearer, makePerson } from '../helpers/factories.ts';
import { Value } from 'typebox/value';
import {
  InsightFunnelResponse,
  InsightPathResponse,
  InsightRetentionResponse,
  InsightTrendResponse,
} from '../../src/analytics/insights/insight.schemas.ts';
import { getInsight } from '../helpers/insights.ts';

const SCHEMAS: Record<string, TSchema> = {
  trend: InsightTrendResponse,
  funnel: InsightFunnelResponse,
  retention: InsightRetentionResponse,
  path: InsightPathResponse,
};

const INSIGHTS: [string, Record<string, unknown>][] = [
  ['trend', { events: [{ id: '$pageview' }], date_from: '2024-01-01', date_to: '2024-01-07' }],
  ['funnel', { events: [{ id: '$pageview' }, { id: 'signup' }], date_from: '2024-01-01', date_to: '2024-01-07' }],
  ['retention', { date_to: '2024-01-07' }],
  ['path', { date_from: '2024-01-01', date_to: '2024-01-07' }],
];

describe('insights: access', () => {
  let a: AnalyticsContext;
  before(async () => {
    a = await setupAnalytics();
    const person = await makePerson(a.ctx.deps.db, a.teamId, { distinctIds: ['someone'] });
    await makeEvent(a.ctx.deps.db, a.teamId, person, '$pageview', '2024-01-02T10:00:00Z', {
      $browser: 'Chrome',
      $current_url: 'https://x.io/',
    });
    await makeEvent(a.ctx.deps.db, a.teamId, person, 'signup', '2024-01-02T10:05:00Z');
  });
  after(() => a.ctx.close());

  it('needs insight:read; insight:write grants it; person:read does not', async () => {
    const db = a.ctx.deps.db;
    const reader = await makeTenantMember(db, a.tenant, 1, ['insight:read']);
    const writer = await makeTenantMember(db, a.tenant, 1, ['insight:write']);
    const persons = await makeTenantMember(db, a.tenant, 1, ['person:read']);
    for (const [name, params] of INSIGHTS) {
      assert.equal((await getInsight(a, name, params, a.teamId, reader.headers)).status, 200, name);
      assert.equal((await getInsight(a, name, params, a.teamId, writer.headers)).status, 200, name);
      const denied = await getInsight(a, name, params, a.teamId, persons.headers);
      assert.equal(denied.status, 403, name);
      assert.equal(denied.body.detail, "API key missing required scope 'insight:read'");
      const post = await a.ctx.app.inject({
        method: 'POST',
        url: `/api/projects/${a.teamId}/insights/${name}/`,
        headers: persons.headers,
        payload: params,
      });
      assert.equal(post.statusCode, 403, name);
    }
  });

  it("never shows another organization's project: 403 for an existing one, 404 for an unknown one, 401 without a key", async () => {
    const other = await makeTenant(a.ctx.deps.db);
    const person = await makePerson(a.ctx.deps.db, other.project.id, { distinctIds: ['theirs'] });
    await makeEvent(a.ctx.deps.db, other.project.id, person, '$pageview', '2024-01-02T10:00:00Z');
    for (const [name, params] of INSIGHTS) {
      const foreign = await getInsight(a, name, params, other.project.id);
      assert.equal(foreign.status, 403, `${name}: ${foreign.text}`);
      assert.doesNotMatch(foreign.text, /theirs/);
      assert.equal((await getInsight(a, name, params, 999_999)).status, 404, name);
      const anonymous = await a.ctx.app.inject({ method: 'GET', url: `/api/projects/${a.teamId}/insights/${name}/` });
      assert.equal(anonymous.statusCode, 401, name);
    }
    // A key limited to other projects is refused this one.
    const scoped = bearer(
      await makeKey(a.ctx.deps.db, a.tenant.owner, { scopes: ['insight:read'], scopedTeams: [other.project.id] }),
    );
    const res = await getInsight(a, 'trend', INSIGHTS[0][1], a.teamId, scoped);
    assert.equal(res.status, 403);
  });

  it('is described in the OpenAPI document: summary, description, parameters, a named answer and examples', async () => {
    const doc = (await a.ctx.app.inject({ method: 'GET', url: '/api/schema/' })).json();
    for (const [name] of INSIGHTS) {
      const path = doc.paths[`/api/projects/{project_id}/insights/${name}/`];
      assert.ok(path, name);
      for (const method of ['get', 'post']) {
        const op = path[method];
        assert.ok(op.summary && op.description, `${name} ${method}`);
        const ok = op.responses['200'].content['application/json'];
        const ref = ok.schema.$ref as string;
        assert.match(ref, /^#\/components\/schemas\/Insight[A-Z][a-z]+Response$/);
        const component = doc.components.schemas[ref.split('/').pop() as string];
        assert.ok(Array.isArray(component.examples) && component.examples.length === 1, `${name} answer example`);
        const query = op.parameters.filter((p: { in: string }) => p.in === 'query');
        assert.ok(
          query.length > 3 && query.every((p: { description?: string }) => p.description),
          `${name} ${method} parameters`,
        );
      }
      const body = path.post.requestBody.content['application/json'];
      assert.ok(body.example, `${name} request example`);
      assert.ok(
        Object.values(body.schema.properties).every((p) => (p as { description?: string }).description),
        `${name} body descriptions`,
      );
    }
  });

  it('answers the example requests, and every kind of answer, in the documented schema, as are the documented examples', async () => {
    const doc = (await a.ctx.app.inject({ method: 'GET', url: '/api/schema/' })).json();
    const check = (name: string, value: unknown, what: string) => {
      const errors = [...Value.Errors(SCHEMAS[name], value)].map((error) => `${error.instancePath} ${error.message}`);
      assert.deepEqual(errors, [], `${what}: ${JSON.stringify(value).slice(0, 400)}`);
    };
    for (const [name] of INSIGHTS) {
      const operation = doc.paths[`/api/projects/{project_id}/insights/${name}/`].post;
      const example = operation.requestBody.content['application/json'].example;
      const res = await a.ctx.app.inject({
        method: 'POST',
        url: `/api/projects/${a.teamId}/insights/${name}/`,
        headers: a.tenant.headers,
        payload: example,
      });
      assert.equal(res.statusCode, 200, `${name}: ${res.body}`);
      check(name, res.json(), `${name} answer to the example`);
      const ref = operation.responses['200'].content['application/json'].schema.$ref as string;
      check(name, doc.components.schemas[ref.split('/').pop() as string].examples[0], `${name} documented example`);
    }
    const events = [{ id: '$pageview' }, { id: 'signup' }];
    const week = { date_from: '2024-01-01', date_to: '2024-01-07' };
    const kinds: [string, Record<string, unknown>][] = [
      ['trend', { events: [{ id: '$pageview', math: 'dau' }], ...week, breakdown: '$browser' }],
      [
        'trend',
        { events: [{ id: '$pageview', math: 'weekly_active' }], ...week, display: 'ActionsLineGraphCumulative' },
      ],
      [
        'trend',
        { events: [{ id: '$pageview' }], ...week, display: 'BoldNumber', breakdown_type: 'cohort', breakdown: ['all'] },
      ],
      ['trend', { events: [{ id: '$pageview' }], ...week, shown_as: 'Stickiness' }],
      ['trend', { events: [{ id: '$pageview' }], ...week, shown_as: 'Lifecycle', interval: 'week' }],
      ['funnel', { events, ...week, breakdown: '$browser' }],
      ['funnel', { events, ...week, breakdown_type: 'cohort', breakdown: ['all'] }],
      ['funnel', { events, ...week, funnel_viz_type: 'trends' }],
      ['funnel', { events, ...week, funnel_order_type: 'unordered' }],
      ['retention', { date_to: '2024-01-07', period: 'Week', retention_type: 'retention_first_time' }],
      ['path', { ...week, include_event_types: ['$pageview', 'custom_event'] }],
    ];
    for (const [name, params] of kinds) {
      const res = await getInsight(a, name, params);
      assert.equal(res.status, 200, `${name} ${JSON.stringify(params)}: ${res.text}`);
      assert.ok(res.body.result.length > 0, `${name} ${JSON.stringify(params)} answers something`);
      check(name, res.body, `${name} ${JSON.stringify(params)}`);
    }
  });
});

describe('insights: rate limit', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await setupTestApp({ config: { rateLimit: true } });
  });
  after(() => ctx.close());

  it("counts against the analytical views' tier: the 241st request in a minute is throttled", async () => {
    const tenant = await makeTenant(ctx.deps.db);
    const statuses: number[] = [];
    // Requests refused for a parameter are cheap and still count.
    for (let i = 0; i < 241; i += 1) {
      statuses.push(
        (
          await ctx.app.inject({
            method: 'GET',
            url: `/api/projects/${tenant.project.id}/insights/trend/`,
            headers: tenant.headers,
          })
        ).statusCode,
      );
    }
    assert.deepEqual([...new Set(statuses.slice(0, 240))], [400]);
    assert.equal(statuses[240], 429);
    const ordinary = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${tenant.project.id}/`,
      headers: tenant.headers,
    });
    assert.equal(ordinary.statusCode, 200);
  });
});
