// The API document explains the API: every operation, parameter, body field and response is
// described, success answers are named schemas, the hard formats carry examples, the docs page
// loads the document, and serializing through the response schemas drops nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Fastify from 'fastify';
import { Type } from 'typebox';
import { registerOpenApi } from '../../src/http/plugins/openapi.ts';
import { describe as describeRoute } from '../../src/http/route-docs.ts';
import { setupTestApp, TestClock, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { deref, operationsOf, parameterExample, undocumented } from '../helpers/openapi-check.ts';

type Json = Record<string, unknown>;

async function documentOf(ctx: TestContext): Promise<Json> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/schema/' });
  assert.equal(res.statusCode, 200);
  return res.json();
}

const parametersOf = (doc: Json, operation: Json) =>
  ((operation.parameters as Json[] | undefined) ?? []).map((p) => deref(doc, p));

describe('the API document', () => {
  let ctx: TestContext;
  let doc: Json;
  before(async () => {
    ctx = await setupTestApp();
    doc = await documentOf(ctx);
  });
  after(() => ctx.close());

  it('documents every operation, parameter, body field and response', (t) => {
    const operations = operationsOf(doc);
    const parameters = operations.reduce((sum, { operation }) => sum + parametersOf(doc, operation).length, 0);
    const schemas = Object.keys((doc.components as Json).schemas as Json);
    t.diagnostic(`${operations.length} operations, ${parameters} parameters, ${schemas.length} named schemas`);
    assert.ok(operations.length >= 60, `${operations.length} operations`);
    assert.deepEqual(undocumented(doc), []);
  });

  it('names the success schemas and shares them through components', () => {
    const schemas = (doc.components as Json).schemas as Json;
    for (const name of [
      'Person',
      'PersonList',
      'Role',
      'RoleList',
      'RoleMembership',
      'OrganizationMember',
      'UserBasic',
      'Cohort',
      'PersonsViewResult',
      'RetentionResult',
      'PropertiesTimeline',
      'Error',
    ]) {
      assert.ok(schemas[name], `${name} in ${Object.keys(schemas).join(', ')}`);
    }
    const paths = doc.paths as Record<string, Record<string, Json>>;
    const answer = (path: string, method: string, status = '200') =>
      ((paths[path][method].responses as Json)[status] as Json).content as Record<string, Json>;
    assert.deepEqual(answer('/api/projects/{project_id}/persons/', 'get')['application/json'].schema, {
      $ref: '#/components/schemas/PersonList',
    });
    assert.deepEqual(answer('/api/projects/{project_id}/persons/trends/', 'get')['application/json'].schema, {
      $ref: '#/components/schemas/PersonsViewResult',
    });
    // A Role embeds its memberships by reference, not by copy.
    assert.deepEqual(((schemas.Role as Json).properties as Json).members, {
      type: 'array',
      items: { $ref: '#/components/schemas/RoleMembership' },
      description: (((schemas.Role as Json).properties as Json).members as Json).description,
    });
  });

  it('shows a property filter with an AND/OR group and a cohort filter wherever properties is taken', () => {
    let seen = 0;
    for (const { label, operation } of operationsOf(doc)) {
      for (const parameter of parametersOf(doc, operation).filter((p) => p.name === 'properties' && p.in === 'query')) {
        seen += 1;
        const example = JSON.parse(String(parameterExample(parameter)));
        const text = JSON.stringify(example);
        assert.match(String(example.type), /^(AND|OR)$/, label);
        assert.ok(Array.isArray(example.values), label);
        assert.match(text, /"type":"cohort"/, `${label}: a cohort filter`);
        assert.match(text, /"type":"(AND|OR)","values"/, `${label}: a nested group`);
      }
    }
    assert.ok(seen >= 8, `${seen} properties parameters`);
  });

  it('shows the events parameter of the analytical views as a JSON list of entities', () => {
    let seen = 0;
    for (const { label, operation } of operationsOf(doc)) {
      for (const parameter of parametersOf(doc, operation).filter((p) => p.name === 'events' && p.in === 'query')) {
        seen += 1;
        const example = JSON.parse(String(parameterExample(parameter)));
        assert.ok(Array.isArray(example) && example.length > 0, label);
        for (const entity of example) assert.equal(typeof entity.id, 'string', `${label}: ${JSON.stringify(entity)}`);
      }
    }
    assert.ok(seen >= 7, `${seen} events parameters`);
  });

  it('explains that the trends date_from names one bucket', () => {
    const trends = (doc.paths as Record<string, Record<string, Json>>)['/api/projects/{project_id}/persons/trends/']
      .get;
    const dateFrom = parametersOf(doc, trends).find((p) => p.name === 'date_from');
    assert.match(String(dateFrom?.description), /bucket/);
    assert.match(String(dateFrom?.description), /-7d/);
    assert.match(String(trends.description), /date_from/);
  });

  it('shows capture bodies: a batch, a single event and form data', () => {
    const batch = (doc.paths as Record<string, Record<string, Json>>)['/batch'].post;
    const content = deref(doc, batch.requestBody).content as Record<string, Json>;
    const examples = content['application/json'].examples as Record<string, { value: Json }>;
    assert.ok(
      Object.values(examples).some((example) => Array.isArray(example.value.batch)),
      'a batch object',
    );
    assert.ok(
      Object.values(examples).some((example) => typeof example.value.event === 'string'),
      'a single event',
    );
    assert.ok(content['application/x-www-form-urlencoded'], 'form data=');
  });

  it('serves the page that renders it, pointed at the document', async () => {
    const page = await ctx.app.inject({ method: 'GET', url: '/api/schema/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    const initializer = await ctx.app.inject({ method: 'GET', url: '/api/schema/docs/static/swagger-initializer.js' });
    assert.equal(initializer.statusCode, 200);
    assert.match(initializer.body, /"url":\s*"\/api\/schema\/"/);
  });
});

describe('the documentation check', () => {
  it('refuses a route that explains nothing, and passes one written with describe()', async () => {
    const app = Fastify();
    await registerOpenApi(app);
    app.get(
      '/api/things/:thing_id/',
      {
        schema: {
          params: Type.Object({ thing_id: Type.String() }),
          querystring: Type.Object({ q: Type.Optional(Type.String()) }),
          response: { 200: Type.Object({ a: Type.String() }) },
        },
        config: { access: { scopes: ['thing:read'] } },
      },
      async () => ({ a: 'x' }),
    );
    app.post('/api/things/', { schema: { body: Type.Object({ name: Type.String() }) } }, async () => ({}));
    // Explained, but a list answer without its paging and JSON parameters without (valid) examples.
    const ThingList = Type.Object(
      { results: Type.Array(Type.String({ description: 'A name.' }), { description: 'The names.' }) },
      { title: 'ThingList', description: 'Things.' },
    );
    app.get(
      '/api/thing_names/',
      {
        schema: {
          ...describeRoute({
            tag: 'projects',
            summary: 'List thing names',
            description: 'Every name.',
            returns: 'The names',
          }),
          querystring: Type.Object({
            filter: Type.Optional(Type.String({ description: 'A JSON list of names.' })),
            order: Type.Optional(Type.String({ description: 'JSON: a list of keys.', examples: ['[name'] })),
          }),
          response: { 200: ThingList },
        },
        config: { access: { scopes: ['thing:read'] } },
      },
      async () => ({ results: [] }),
    );
    const Thing = Type.Object(
      { name: Type.String({ description: 'Its name.' }) },
      { title: 'Thing', description: 'A thing.' },
    );
    app.get(
      '/api/things/',
      {
        schema: {
          ...describeRoute({
            tag: 'projects',
            summary: 'List things',
            description: 'Every thing.',
            returns: 'The things',
          }),
          querystring: Type.Object({
            q: Type.Optional(Type.String({ description: 'Narrows them.' })),
            names: Type.Optional(Type.String({ description: 'A JSON list of names.', examples: ['["a"]'] })),
          }),
          response: { 200: Thing },
        },
        config: { access: { scopes: ['thing:read'] } },
      },
      async () => ({ name: 'x' }),
    );
    await app.ready();
    const document = app.swagger() as unknown as Json;
    const findings = undocumented(document);
    assert.deepEqual(
      (document.tags as Json[]).map((tag) => tag.name),
      ['projects'],
      'only the groups in use are listed',
    );
    await app.close();
    for (const expected of [
      'GET /api/things/{thing_id}/: no summary',
      'GET /api/things/{thing_id}/: no description',
      'GET /api/things/{thing_id}/: no tag',
      'GET /api/things/{thing_id}/: path parameter thing_id has no description',
      'GET /api/things/{thing_id}/: query parameter q has no description',
      'GET /api/things/{thing_id}/: 200 has no description',
      'GET /api/things/{thing_id}/: 200 answers an unnamed schema',
      'POST /api/things/: body field name (application/json) has no description',
      // Without config.access there is no scope to state: a route that forgot its access rule shows.
      'POST /api/things/: does not state its scope',
      'GET /api/thing_names/: answers a list but does not say how it pages',
      'GET /api/thing_names/: query parameter filter takes JSON but shows no example',
      'GET /api/thing_names/: query parameter order has an example that is not JSON',
    ]) {
      assert.ok(findings.includes(expected), `${expected} in ${findings.join('\n')}`);
    }
    assert.deepEqual(
      findings.filter((finding) => finding.startsWith('GET /api/things/: ') || finding.startsWith('schema Thing')),
      [],
    );
  });
});

describe('serializing through the response schemas', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  const handed = new Map<string, unknown>();
  before(async () => {
    ctx = await setupTestApp({
      clock: new TestClock(new Date('2026-03-10T12:00:00Z')),
      beforeReady: (app) => {
        app.addHook('preSerialization', async (request, _reply, payload) => {
          handed.set(request.id, JSON.parse(JSON.stringify(payload)));
          return payload;
        });
      },
    });
    tenant = await makeTenant(ctx.deps.db);
    const event = (name: string, distinctId: string, timestamp: string, properties: Json = {}) => ({
      event: name,
      distinct_id: distinctId,
      timestamp,
      properties,
    });
    const capture = await ctx.app.inject({
      method: 'POST',
      url: '/batch/',
      payload: {
        api_key: tenant.project.api_token,
        batch: [
          event('$pageview', 'ada', '2026-03-09T10:00:00Z', {
            $current_url: 'https://example.com/pricing',
            $set: { email: 'ada@example.com', name: 'Ada', plan: 'pro' },
          }),
          event('clicked', 'ada', '2026-03-09T10:05:00Z', { button: 'buy' }),
          event('signed up', 'ada', '2026-03-09T10:10:00Z'),
          event('$pageview', 'bob', '2026-03-09T11:00:00Z', {
            $current_url: 'https://example.com/',
            $set: { email: 'bob@example.org' },
          }),
        ],
      },
    });
    assert.equal(capture.statusCode, 200, capture.body);
  });
  after(() => ctx.close());

  it('answers every field the handlers return, on every view and list', async () => {
    const base = `/api/projects/${tenant.project.id}/persons`;
    const persons = (await ctx.app.inject({ method: 'GET', url: `${base}/`, headers: tenant.headers })).json()
      .results as { id: number; uuid: string }[];
    assert.equal(persons.length, 2);
    const pageview = encodeURIComponent(JSON.stringify([{ id: '$pageview' }]));
    const funnel = encodeURIComponent(
      JSON.stringify([
        { id: '$pageview', order: 0 },
        { id: 'signed up', order: 1 },
      ]),
    );
    const clicked = encodeURIComponent(JSON.stringify({ id: 'clicked', type: 'events' }));
    const withPeople = [
      `${base}/trends/?events=${pageview}&entity_id=$pageview&entity_type=events&date_from=2026-03-09`,
      `${base}/stickiness/?events=${pageview}&entity_id=$pageview&entity_type=events&stickiness_days=1`,
      `${base}/lifecycle/?events=${pageview}&target_date=2026-03-09&lifecycle_type=new`,
      `${base}/funnel/?events=${funnel}&funnel_step=2`,
      `${base}/funnel/correlation/?events=${funnel}&funnel_correlation_person_entity=${clicked}`,
      `${base}/path/?date_from=-7d`,
    ];
    const urls = [
      ...withPeople,
      `${base}/retention/?date_to=2026-03-10&selected_interval=9`,
      `${base}/${persons[0].id}/properties_timeline/?events=${pageview}&properties=${encodeURIComponent(JSON.stringify([{ key: 'email', operator: 'is_set', type: 'person' }]))}`,
      `${base}/values/?key=email`,
      `${base}/cohorts/?person_id=${persons[0].uuid}`,
      `${base}/activity/`,
      `${base}/deletion_status/`,
      `${base}/${persons[0].id}/`,
      `${base}/?properties=${encodeURIComponent(JSON.stringify([{ key: 'plan', value: 'pro' }]))}`,
      `/api/organizations/${tenant.organization.id}/members/`,
      `/api/organizations/${tenant.organization.id}/`,
      `/api/projects/${tenant.project.id}/`,
      '/api/personal_api_keys/',
    ];
    let compared = 0;
    for (const url of urls) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      const value = handed.get(String(res.headers['x-request-id']));
      assert.ok(value !== undefined, `${url} went through serialization`);
      assert.deepEqual(res.json(), value, url);
      if (withPeople.includes(url)) assert.ok(res.json().results[0].people.length > 0, `${url} lists persons`);
      compared += 1;
    }
    const retention = await ctx.app.inject({ method: 'GET', url: urls[withPeople.length], headers: tenant.headers });
    assert.ok(retention.json().result.length > 0, 'retention lists persons');
    const timeline = await ctx.app.inject({ method: 'GET', url: urls[withPeople.length + 1], headers: tenant.headers });
    assert.ok(timeline.json().points.length > 0, 'the timeline has points');
    assert.equal(compared, urls.length);
  });
});

describe('the documented examples', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let doc: Json;
  let cohortId: number;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    const person = (distinctId: string, set: Json) => ({
      event: '$pageview',
      distinct_id: distinctId,
      properties: { $set: set },
    });
    const capture = await ctx.app.inject({
      method: 'POST',
      url: '/batch/',
      payload: {
        api_key: tenant.project.api_token,
        batch: [
          person('ada', { email: 'ada@example.com', plan: 'pro' }),
          person('bob', { email: 'bob@example.org', plan: 'pro' }),
          person('cy', { email: 'cy@example.com', plan: 'free' }),
          person('di', { email: 'di@example.com', plan: 'free' }),
        ],
      },
    });
    assert.equal(capture.statusCode, 200, capture.body);
    const cohort = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${tenant.project.id}/cohorts/`,
      headers: tenant.headers,
      payload: { name: 'Invited', is_static: true, distinct_ids: ['cy'] },
    });
    assert.equal(cohort.statusCode, 201, cohort.body);
    cohortId = cohort.json().id;
    doc = await documentOf(ctx);
  });
  after(() => ctx.close());

  // The examples name cohort 12; this project's cohort stands in for it.
  const exampleOf = (parameter: Json) =>
    String(parameterExample(parameter)).replace(/"value":12,"type":"cohort"/g, `"value":${cohortId},"type":"cohort"`);

  it('answers every project GET called with all of its documented query examples at once', async () => {
    let called = 0;
    for (const { label, method, path, operation } of operationsOf(doc)) {
      if (method !== 'get' || !path.startsWith('/api/projects/{project_id}/') || path.includes('{id}')) continue;
      const query = new URLSearchParams();
      for (const parameter of parametersOf(doc, operation)) {
        if (parameter.in === 'query' && parameter.name !== 'format' && parameterExample(parameter) !== undefined)
          query.set(String(parameter.name), exampleOf(parameter));
      }
      if (query.size === 0) continue;
      const res = await ctx.app.inject({
        method: 'GET',
        url: `${path.replace('{project_id}', String(tenant.project.id))}?${query}`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 200, `${label}?${query}: ${res.body}`);
      called += 1;
    }
    assert.ok(called >= 12, `${called} operations called`);
  });

  it('means what it says: the property filter example keeps @example.com persons on a paid plan or in the cohort', async () => {
    const list = (doc.paths as Record<string, Record<string, Json>>)['/api/projects/{project_id}/persons/'].get;
    const properties = parametersOf(doc, list).find((p) => p.name === 'properties') as Json;
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${tenant.project.id}/persons/?properties=${encodeURIComponent(exampleOf(properties))}`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 200, res.body);
    const emails = (res.json().results as { properties: Json }[]).map((p) => p.properties.email).sort();
    assert.deepEqual(emails, ['ada@example.com', 'cy@example.com']);
  });
});
