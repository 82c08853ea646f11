import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exportPerson } from '../../src/modules/persons/person-export.service.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makeKey, makePerson, makeProject, makeTenant, type Tenant } from '../helpers/factories.ts';
import { insertEvents, insertManyEvents } from './privacy-seed.ts';

describe('GET /api/projects/:project_id/persons/:id/export/', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  const url = (id: number | string, team = tenant.project.id) => `/api/projects/${team}/persons/${id}/export/`;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('streams the person, their ids, every event of their ids oldest first, activity and cohorts — nothing of anyone else', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['x-1', 'x-2'], properties: { email: 'x@example.com' } });
    const other = await makePerson(db, team, { distinctIds: ['y-1'] });
    const [late, early] = await insertEvents(db, team, [
      { distinctId: 'x-1', personId: person.id, timestamp: '2026-03-02T00:00:00Z', properties: { n: 2 } },
      { distinctId: 'x-2', personId: person.id, timestamp: '2026-03-01T00:00:00Z', event: 'signup' },
    ]);
    // A personless event of one of the person's ids (not linked yet): theirs too.
    const [anonymous] = await insertEvents(db, team, [
      { distinctId: 'x-2', personId: null, timestamp: '2026-03-01T12:00:00Z' },
    ]);
    await insertEvents(db, team, [{ distinctId: 'y-1', personId: other.id, timestamp: '2026-03-01T06:00:00Z' }]);
    // The same distinct id in another project.
    const elsewhere = await makeProject(db, tenant.organization);
    const twin = await makePerson(db, elsewhere.id, { distinctIds: ['x-1'] });
    await insertEvents(db, elsewhere.id, [{ distinctId: 'x-1', personId: twin.id, timestamp: '2026-03-01T00:00:00Z' }]);
    const cohort = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${team}/cohorts/`,
      headers: tenant.headers,
      payload: {
        name: 'Examples',
        filters: { properties: [{ key: 'email', value: 'example.com', operator: 'icontains' }] },
      },
    });
    assert.equal(cohort.statusCode, 201, cohort.body);
    await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${team}/persons/${person.id}/update_property/`,
      headers: tenant.headers,
      payload: { key: 'plan', value: 'pro' },
    });

    const res = await ctx.app.inject({ method: 'GET', url: url(person.uuid), headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="person-[0-9a-f-]+\.json"$/);
    assert.match(String(res.headers['content-type']), /application\/json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['person', 'distinct_ids', 'events', 'activity', 'cohorts']);
    assert.equal(body.person.uuid, person.uuid);
    assert.equal(body.person.properties.plan, 'pro');
    assert.deepEqual(body.distinct_ids, ['x-1', 'x-2']);
    // The last is the `$set` event update_property captured.
    assert.deepEqual(body.events.map((event: { uuid: string }) => event.uuid).slice(0, 3), [early, anonymous, late]);
    assert.deepEqual(
      body.events.map((event: { event: string }) => event.event),
      ['signup', 'pageview', 'pageview', '$set'],
    );
    assert.deepEqual(body.events[2], {
      uuid: late,
      event: 'pageview',
      distinct_id: 'x-1',
      properties: { n: 2 },
      timestamp: '2026-03-02T00:00:00.000Z',
    });
    assert.deepEqual(
      body.activity.map((entry: { activity: string }) => entry.activity),
      ['updated'],
    );
    assert.deepEqual(body.cohorts, [{ id: cohort.json().id, name: 'Examples' }]);

    // A read changes no row: the export is logged, not written to the activity log.
    const recorded = await db
      .selectFrom('activity_log')
      .select('activity')
      .where('organization_id', '=', tenant.organization.id)
      .where('item_id', '=', String(person.id))
      .execute();
    assert.deepEqual(
      recorded.map((row) => row.activity),
      ['updated'],
    );
  });

  it('needs person:read, a member, and the person in the project (404 otherwise)', async () => {
    const db = ctx.deps.db;
    const person = await makePerson(db, tenant.project.id);
    const writeOnly = await makeKey(db, tenant.owner, { scopes: ['cohort:read'] });
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: url(person.id), headers: bearer(writeOnly) })).statusCode,
      403,
    );
    const stranger = await makeTenant(db);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: url(person.id), headers: stranger.headers })).statusCode,
      403,
    );
    const missing = await ctx.app.inject({
      method: 'GET',
      url: url(person.id, stranger.project.id),
      headers: stranger.headers,
    });
    assert.equal(missing.statusCode, 404);
    assert.equal(missing.json().code, 'not_found');
    const bad = await ctx.app.inject({ method: 'GET', url: url('not-an-id'), headers: tenant.headers });
    assert.equal(bad.statusCode, 400);
  });

  it('exports 100 000 events in order, reading one bounded page at a time', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['big-1'] });
    const total = 100_000;
    await insertManyEvents(db, team, {
      distinctId: 'big-1',
      personId: person.id,
      count: total,
      start: '2025-01-01T00:00:00Z',
    });

    // The service's document: every piece holds at most one page of events, and a page is read only
    // when the consumer takes the piece before it (an async generator pulls lazily) — so the server
    // never holds more than one page, however many events. Page reads are counted on the way out.
    const pageSize = 5000;
    let pageReads = 0;
    const counting = ctx.deps.db.withPlugin({
      transformQuery: ({ node }) => {
        if (node.kind === 'RawNode' && JSON.stringify(node).includes('union all')) pageReads += 1;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const exported = await exportPerson({ ...ctx.deps, db: counting }, { user: tenant.owner, key: {} } as never, {
      project: tenant.project,
      id: String(person.id),
      pageSize,
    });
    let seen = 0;
    let eventPieces = 0;
    let previous = -1;
    for await (const piece of exported.body) {
      const count = piece.split('"event":').length - 1;
      assert.ok(count <= pageSize, `a piece holds ${count} events`);
      if (count > 0) eventPieces += 1;
      assert.ok(pageReads <= eventPieces + 1, `${pageReads} pages read for ${eventPieces} pieces taken`);
      for (const match of piece.matchAll(/"properties":\{"i":(\d+)\}/g)) {
        const i = Number(match[1]);
        assert.ok(i > previous, 'oldest first');
        previous = i;
      }
      seen += count;
    }
    assert.equal(seen, total);
    assert.equal(eventPieces, total / pageSize);
    // Every full page, and the empty one that ends the walk.
    assert.equal(pageReads, total / pageSize + 1);

    // And through HTTP, the whole document.
    const res = await ctx.app.inject({ method: 'GET', url: url(person.id), headers: tenant.headers });
    assert.equal(res.statusCode, 200);
    const events = res.json().events as { properties: { i: number } }[];
    assert.equal(events.length, total);
    assert.equal(events[0].properties.i, 1);
    assert.equal(events[total - 1].properties.i, total);
  });
});
