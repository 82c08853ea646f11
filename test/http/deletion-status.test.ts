import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makeKey, makePerson, makeTenant, type Tenant, type TestPerson } from '../helpers/factories.ts';
import { deletePersonQueuingEvents, seedEvents, totalsOf } from '../integration/deletion-seed.ts';

describe('GET /api/projects/:project_id/persons/deletion_status/', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let first: TestPerson;
  let second: TestPerson;
  let third: TestPerson;
  const url = (query = '') => `/api/projects/${tenant.project.id}/persons/deletion_status/${query}`;
  const get = (path: string, headers = tenant.headers) => ctx.app.inject({ method: 'GET', url: path, headers });

  before(async () => {
    ctx = await setupTestApp();
    const db = ctx.deps.db;
    tenant = await makeTenant(db);
    await db.updateTable('users').set({ first_name: 'Ada' }).where('id', '=', tenant.owner.id).execute();
    const team = tenant.project.id;
    first = await makePerson(db, team, { distinctIds: ['a-1', 'a-2'] });
    second = await makePerson(db, team, { distinctIds: ['b-1'] });
    third = await makePerson(db, team, { distinctIds: ['c-1'] });
    await seedEvents(db, team, 'a-1', first.id, 3);
    await seedEvents(db, team, 'a-2', null, 1);
    await seedEvents(db, team, 'b-1', second.id, 2);
    await deletePersonQueuingEvents(db, first, { createdById: tenant.owner.id, now: new Date('2026-11-18T10:00:00Z') });
    await deletePersonQueuingEvents(db, second, { createdById: null, now: new Date('2026-11-19T10:00:00Z') });
    // Another project's task never shows here.
    const other = await makeTenant(db);
    const stranger = await makePerson(db, other.project.id, { distinctIds: ['a-1'] });
    await deletePersonQueuingEvents(db, stranger, { now: new Date('2026-11-20T10:00:00Z') });
  });
  after(() => ctx.close());

  it('lists the project’s tasks as pending, newest first', async () => {
    const res = await get(url());
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.count, 2);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(
      body.results.map((task: { person_uuid: string }) => task.person_uuid),
      [second.uuid, first.uuid],
    );
    const [, oldest] = body.results;
    assert.equal(typeof oldest.id, 'number');
    assert.deepEqual(
      { ...oldest, id: 0 },
      {
        id: 0,
        kind: 'person',
        person_id: first.id,
        person_uuid: first.uuid,
        distinct_ids: ['a-1', 'a-2'],
        status: 'pending',
        created_at: '2026-11-18T10:00:00.000Z',
        delete_verified_at: null,
        cancelled_at: null,
        events_deleted: 0,
        created_by: { first_name: 'Ada', email: tenant.owner.email },
      },
    );
    assert.equal(body.results[0].created_by, null);
  });

  it('shows them completed once a batch ran, and new ones pending', async () => {
    ctx.clock.set('2026-11-22T05:00:00Z');
    assert.deepEqual(totalsOf(await runDeletionBatch(ctx.deps)), { processed: 3, events_deleted: 6 });
    await deletePersonQueuingEvents(ctx.deps.db, third, { now: new Date('2026-11-23T10:00:00Z') });

    const all = (await get(url())).json();
    assert.deepEqual(
      all.results.map((task: { person_uuid: string; status: string }) => [task.person_uuid, task.status]),
      [
        [third.uuid, 'pending'],
        [second.uuid, 'completed'],
        [first.uuid, 'completed'],
      ],
    );
    const done = all.results[2];
    assert.equal(done.delete_verified_at, '2026-11-22T05:00:00.000Z');
    assert.equal(done.events_deleted, 4);
    assert.equal(all.results[1].events_deleted, 2);

    const pending = (await get(url('?status=pending'))).json();
    assert.equal(pending.count, 1);
    assert.equal(pending.results[0].person_uuid, third.uuid);

    const completed = (await get(url('?status=completed'))).json();
    assert.equal(completed.count, 2);
    assert.ok(completed.results.every((task: { status: string }) => task.status === 'completed'));

    const one = (await get(url(`?person_uuid=${second.uuid.toUpperCase()}`))).json();
    assert.equal(one.count, 1);
    assert.equal(one.results[0].person_uuid, second.uuid);

    const none = (await get(url(`?status=pending&person_uuid=${second.uuid}`))).json();
    assert.deepEqual(none, { count: 0, next: null, previous: null, results: [] });
  });

  it('paginates with the standard envelope', async () => {
    const res = await get(url('?limit=1&offset=1'));
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.count, 3);
    assert.equal(body.results.length, 1);
    assert.equal(body.results[0].person_uuid, second.uuid);
    assert.match(body.next, /limit=1&offset=2$/);
    assert.match(body.previous, /limit=1&offset=0$/);
  });

  it('reads status=all as no filter', async () => {
    const all = await get(url('?status=all'));
    assert.equal(all.statusCode, 200, all.body);
    const statuses = all.json().results.map((task: { status: string }) => task.status);
    assert.ok(statuses.includes('pending') && statuses.includes('completed'), statuses.join());
    assert.equal(all.json().count, (await get(url())).json().count);
  });

  it('rejects a bad status filter with 400 on attr status', async () => {
    for (const status of ['done', 'ALL', '']) {
      const res = await get(url(`?status=${status}`));
      assert.equal(res.statusCode, 400, status);
      assert.deepEqual(res.json(), {
        type: 'validation_error',
        code: 'invalid_choice',
        detail: `"${status}" is not a valid choice.`,
        attr: 'status',
      });
    }
  });

  it('rejects a person_uuid that is not a UUID with 400 on attr person_uuid', async () => {
    for (const value of ['nope', '123', '']) {
      const res = await get(url(`?person_uuid=${value}`));
      assert.equal(res.statusCode, 400, value);
      const body = res.json();
      assert.equal(body.type, 'validation_error');
      assert.equal(body.attr, 'person_uuid');
    }
  });

  it('rejects a bad limit with 400', async () => {
    const res = await get(url('?limit=0'));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().attr, 'limit');
  });

  it('needs person:read and access to the project', async () => {
    const db = ctx.deps.db;
    assert.equal((await ctx.app.inject({ method: 'GET', url: url() })).statusCode, 401);

    const readOnly = await makeKey(db, tenant.owner, { scopes: ['person:read'] });
    assert.equal((await get(url(), bearer(readOnly))).statusCode, 200);
    const writer = await makeKey(db, tenant.owner, { scopes: ['person:write'] });
    assert.equal((await get(url(), bearer(writer))).statusCode, 200);
    const wrongScope = await makeKey(db, tenant.owner, { scopes: ['organization:read'] });
    const denied = await get(url(), bearer(wrongScope));
    assert.equal(denied.statusCode, 403);
    assert.match(denied.json().detail, /person:read/);

    const outsider = await makeTenant(db);
    assert.equal((await get(url(), outsider.headers)).statusCode, 403);
    assert.equal((await get(`/api/projects/999999/persons/deletion_status/`)).statusCode, 404);
  });
});
