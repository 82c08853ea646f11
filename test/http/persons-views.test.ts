import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makeKey, makePerson, makeTenant, type Tenant, type TestPerson } from '../helpers/factories.ts';
import { enc, seedEvent } from './persons.fixtures.ts';

describe('person values, cohorts and properties timeline', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let base: string;
  let alice: TestPerson;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
    base = `/api/projects/${tenant.project.id}/persons`;
    const t = tenant.project.id;
    const values: unknown[] = ['pro', 'pro', 'pro', 'free', 'free', 42, '42', true, '', null, 'Prime', 'b', 'a'];
    for (const value of values) await makePerson(ctx.deps.db, t, { properties: { plan: value } });
    alice = await makePerson(ctx.deps.db, t, {
      properties: { plan: 'pro', email: 'alice@x.io' },
      distinctIds: ['alice'],
    });
    await makePerson(ctx.deps.db, other.project.id, { properties: { plan: 'secret' } });
  });
  after(() => ctx.close());

  const get = (url: string, headers: Record<string, string> = tenant.headers) =>
    ctx.app.inject({ method: 'GET', url, headers });

  describe('values', () => {
    it('answers the top values by count, typed, ties by JSON text', async () => {
      const res = await get(`${base}/values/?key=plan`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), [
        { name: 'pro', count: 4 },
        { name: 'free', count: 2 },
        // "42" < "Prime" < "a" < "b" as JSON text, then 42 and true (bytes after the quote).
        { name: '42', count: 1 },
        { name: 'Prime', count: 1 },
        { name: 'a', count: 1 },
        { name: 'b', count: 1 },
        { name: 42, count: 1 },
        { name: true, count: 1 },
      ]);
    });

    it('narrows by a case-insensitive substring, and answers [] without a key', async () => {
      assert.deepEqual((await get(`${base}/values/?key=plan&value=PR`)).json(), [
        { name: 'pro', count: 4 },
        { name: 'Prime', count: 1 },
      ]);
      assert.deepEqual((await get(`${base}/values/?key=plan&value=%25`)).json(), []);
      assert.deepEqual((await get(`${base}/values/`)).json(), []);
      assert.deepEqual((await get(`${base}/values/?key=unknown`)).json(), []);
    });

    it('renders CSV', async () => {
      const res = await get(`${base}/values/?key=plan&value=free&format=csv`);
      assert.equal(res.body, 'count,name\n2,free\n');
    });
  });

  describe('cohorts of a person', () => {
    it('lists the cohorts that contain the person, static and dynamic', async () => {
      const cohorts = `/api/projects/${tenant.project.id}/cohorts/`;
      const dynamic = (
        await ctx.app.inject({
          method: 'POST',
          url: cohorts,
          headers: tenant.headers,
          payload: { name: 'Pros', filters: { properties: [{ key: 'plan', value: 'pro' }] } },
        })
      ).json();
      const picked = (
        await ctx.app.inject({
          method: 'POST',
          url: cohorts,
          headers: tenant.headers,
          payload: { name: 'Picked', is_static: true, distinct_ids: ['alice'] },
        })
      ).json();
      await ctx.app.inject({
        method: 'POST',
        url: cohorts,
        headers: tenant.headers,
        payload: { name: 'Free', filters: { properties: [{ key: 'plan', value: 'free' }] } },
      });
      for (const ref of [alice.id, alice.uuid]) {
        const res = await get(`${base}/cohorts/?person_id=${ref}`);
        assert.equal(res.statusCode, 200, res.body);
        const results = res.json().results;
        assert.deepEqual(results.map((c: { id: number }) => c.id).sort(), [dynamic.id, picked.id].sort());
        const pros = results.find((c: { id: number }) => c.id === dynamic.id);
        assert.deepEqual(pros, {
          id: dynamic.id,
          name: 'Pros',
          count: 4,
          is_static: false,
          created_at: dynamic.created_at,
        });
      }
    });

    it('answers 400 without person_id, 404 for an unknown person, and needs both scopes', async () => {
      const missing = await get(`${base}/cohorts/`);
      assert.equal(missing.statusCode, 400);
      assert.equal(missing.json().attr, 'person_id');
      assert.equal((await get(`${base}/cohorts/?person_id=999999`)).statusCode, 404);
      assert.equal((await get(`${base}/cohorts/?person_id=abc`)).statusCode, 400);
      const personOnly = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['person:read'] });
      const denied = await get(`${base}/cohorts/?person_id=${alice.id}`, bearer(personOnly));
      assert.equal(denied.statusCode, 403);
      assert.equal(denied.json().detail, "API key missing required scope 'cohort:read'");
      const foreign = await makePerson(ctx.deps.db, other.project.id, {});
      assert.equal((await get(`${base}/cohorts/?person_id=${foreign.id}`)).statusCode, 404);
    });
  });

  describe('properties_timeline', () => {
    it('emits a point at the first event and at each change of a crucial property', async () => {
      const t = tenant.project.id;
      const person = await makePerson(ctx.deps.db, t, { properties: { plan: 'team' }, distinctIds: ['tl'] });
      const snapshots: [string, Record<string, unknown>][] = [
        ['2026-01-01T10:00:00Z', { plan: 'free', seen: 1 }],
        ['2026-01-02T10:00:00Z', { plan: 'free', seen: 2 }],
        ['2026-01-03T10:00:00Z', { plan: 'pro', seen: 3 }],
        ['2026-01-04T10:00:00Z', { plan: 'pro', seen: 4 }],
        ['2026-01-05T10:00:00Z', { plan: 'team', seen: 5 }],
      ];
      for (const [timestamp, personProperties] of snapshots)
        await seedEvent(ctx.deps.db, t, person, { timestamp, personProperties, distinctId: 'tl' });
      const filter = enc([{ key: 'plan', value: 'team', type: 'person' }]);
      const res = await get(
        `${base}/${person.id}/properties_timeline/?properties=${filter}&date_from=2026-01-01&date_to=2026-01-05`,
      );
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), {
        points: [
          { timestamp: '2026-01-01T10:00:00.000Z', properties: { plan: 'free', seen: 1 }, relevant_event_count: 2 },
          { timestamp: '2026-01-03T10:00:00.000Z', properties: { plan: 'pro', seen: 3 }, relevant_event_count: 2 },
          { timestamp: '2026-01-05T10:00:00.000Z', properties: { plan: 'team', seen: 5 }, relevant_event_count: 1 },
        ],
        crucial_property_keys: ['plan'],
        effective_date_from: '2026-01-01T00:00:00.000Z',
        effective_date_to: '2026-01-05T23:59:59.999Z',
      });
      const narrow = (
        await get(`${base}/${person.id}/properties_timeline/?date_from=2026-01-02&date_to=2026-01-03`)
      ).json();
      assert.deepEqual(narrow.points, [
        { timestamp: '2026-01-02T10:00:00.000Z', properties: { plan: 'free', seen: 2 }, relevant_event_count: 2 },
      ]);
      assert.deepEqual(narrow.crucial_property_keys, []);
      for (const [query, attr] of [
        ['date_from=someday', 'date_from'],
        ['date_to=%2B200000-01-01', 'date_to'],
        ['date_from=-99999999999y', 'date_from'],
        ['events=%7B%7D', 'events'],
      ]) {
        const bad = await get(`${base}/${person.id}/properties_timeline/?${query}`);
        assert.equal(bad.statusCode, 400, query);
        assert.equal(bad.json().attr, attr);
      }
      // Date-times without an offset are UTC, whatever the server's time zone.
      const zone = process.env.TZ;
      process.env.TZ = 'Asia/Tokyo';
      try {
        const local = (
          await get(
            `${base}/${person.id}/properties_timeline/?date_from=2026-01-02T10:00:00&date_to=2026-01-03T09:00:00`,
          )
        ).json();
        assert.equal(local.effective_date_from, '2026-01-02T10:00:00.000Z');
        assert.equal(local.effective_date_to, '2026-01-03T09:00:00.000Z');
        assert.deepEqual(
          local.points.map((point: { timestamp: string }) => point.timestamp),
          ['2026-01-02T10:00:00.000Z'],
        );
      } finally {
        if (zone === undefined) delete process.env.TZ;
        else process.env.TZ = zone;
      }
      const eventsOnly = (
        await get(`${base}/${person.id}/properties_timeline/?events=${enc([{ id: 'nothing-like-this' }])}`)
      ).json();
      assert.deepEqual(eventsOnly.points, []);
      assert.equal((await get(`${base}/999999/properties_timeline/`)).statusCode, 404);
    });
  });
});
