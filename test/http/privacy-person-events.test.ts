import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makeKey, makePerson, makeProject, makeTenant, type Tenant } from '../helpers/factories.ts';
import { post } from './capture-helpers.ts';
import { countTeamEvents, insertEvents } from './privacy-seed.ts';

describe('POST /api/projects/:project_id/persons/:id/delete_events/ and cancelling person tasks', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  const base = () => `/api/projects/${tenant.project.id}/persons`;
  const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, headers = tenant.headers) =>
    ctx.app.inject({ method, url, headers });

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('deletes the events stored up to the request; the person, properties and ids stay; new events join them', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['p-1', 'p-2'], properties: { email: 'p@example.com' } });
    const bystander = await makePerson(db, team, { distinctIds: ['b-1'] });
    await insertEvents(db, team, [
      { distinctId: 'p-1', personId: person.id, timestamp: '2026-01-01T00:00:00Z' },
      { distinctId: 'p-2', personId: person.id, timestamp: '2026-01-02T00:00:00Z' },
      { distinctId: 'p-2', personId: null, timestamp: '2026-01-03T00:00:00Z' },
      { distinctId: 'b-1', personId: bystander.id, timestamp: '2026-01-01T00:00:00Z' },
    ]);
    const elsewhere = await makeProject(db, tenant.organization);
    await insertEvents(db, elsewhere.id, [{ distinctId: 'p-1', timestamp: '2026-01-01T00:00:00Z' }]);

    const res = await inject('POST', `${base()}/${person.uuid}/delete_events/`);
    assert.equal(res.statusCode, 202, res.body);
    const task = res.json();
    assert.equal(task.kind, 'person_events');
    assert.equal(task.status, 'pending');
    assert.equal(task.person_uuid, person.uuid);
    assert.deepEqual(task.distinct_ids, ['p-1', 'p-2']);
    assert.equal(task.created_by.email, tenant.owner.email);

    // Stored after the request: kept, and captured through the API it still joins the person.
    const captured = await post(ctx.app, '/batch/', {
      api_key: tenant.project.api_token,
      batch: [{ event: 'after-request', distinct_id: 'p-1', properties: {} }],
    });
    assert.equal(captured.statusCode, 200, captured.body);

    const result = await runDeletionBatch(ctx.deps, { chunkSize: 2 });
    assert.equal(result.kinds.person_events.processed, 1);
    assert.equal(result.kinds.person_events.events_deleted, 3);

    const left = await db
      .selectFrom('events')
      .select(['event', 'distinct_id', 'person_id'])
      .where('team_id', '=', team)
      .orderBy('event')
      .execute();
    assert.deepEqual(left, [
      { event: 'after-request', distinct_id: 'p-1', person_id: person.id },
      { event: 'pageview', distinct_id: 'b-1', person_id: bystander.id },
    ]);
    assert.equal(await countTeamEvents(db, elsewhere.id), 1);
    const kept = (await inject('GET', `${base()}/${person.id}/`)).json();
    assert.deepEqual(kept.distinct_ids, ['p-1', 'p-2']);
    assert.equal(kept.properties.email, 'p@example.com');

    const listed = (await inject('GET', `${base()}/deletion_status/?person_uuid=${person.uuid}`)).json();
    assert.equal(listed.results[0].status, 'completed');
    assert.equal(listed.results[0].events_deleted, 3);
    const activities = await db
      .selectFrom('activity_log')
      .select('activity')
      .where('organization_id', '=', tenant.organization.id)
      .where('item_id', '=', String(person.id))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      activities.map((row) => row.activity),
      ['events_deletion_queued', 'events_deletion_completed'],
    );

    // A task that has run cannot be cancelled.
    const late = await inject('DELETE', `${base()}/deletion_status/${task.id}/`);
    assert.equal(late.statusCode, 409);
    assert.equal(late.json().type, 'invalid_request');
  });

  it('a cancelled task never runs and shows cancelled; unknown or foreign tasks are 404', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['c-1'] });
    await insertEvents(db, team, [{ distinctId: 'c-1', personId: person.id, timestamp: '2026-01-01T00:00:00Z' }]);
    const task = (await inject('POST', `${base()}/${person.id}/delete_events/`)).json();

    const readOnly = await makeKey(db, tenant.owner, { scopes: ['person:read'] });
    assert.equal((await inject('DELETE', `${base()}/deletion_status/${task.id}/`, bearer(readOnly))).statusCode, 403);
    const stranger = await makeTenant(db);
    const foreign = await inject(
      'DELETE',
      `/api/projects/${stranger.project.id}/persons/deletion_status/${task.id}/`,
      stranger.headers,
    );
    assert.equal(foreign.statusCode, 404);
    // A person task is not an event deletion.
    assert.equal((await inject('DELETE', `/api/projects/${team}/event_deletions/${task.id}/`)).statusCode, 404);

    const cancelled = await inject('DELETE', `${base()}/deletion_status/${task.id}/`);
    assert.equal(cancelled.statusCode, 204, cancelled.body);
    assert.equal(cancelled.body, '');
    const result = await runDeletionBatch(ctx.deps);
    assert.equal(result.kinds.person_events.processed, 0);
    assert.equal(await countTeamEvents(db, team), 3, 'the c-1 event and the first test’s two');
    const listed = (await inject('GET', `${base()}/deletion_status/?status=cancelled`)).json();
    assert.deepEqual(
      listed.results.map((row: { id: number; status: string }) => [row.id, row.status]),
      [[task.id, 'cancelled']],
    );
    assert.notEqual(listed.results[0].cancelled_at, null);
    const again = await inject('DELETE', `${base()}/deletion_status/${task.id}/`);
    assert.equal(again.statusCode, 204, 'cancelling twice is harmless');
  });

  it('a queued deletion of a deleted person can be cancelled too', async () => {
    const db = ctx.deps.db;
    const person = await makePerson(db, tenant.project.id, { distinctIds: ['d-1'] });
    await insertEvents(db, tenant.project.id, [
      { distinctId: 'd-1', personId: person.id, timestamp: '2026-01-01T00:00:00Z' },
    ]);
    const deleted = await inject('DELETE', `${base()}/${person.id}/?delete_events=true`);
    assert.equal(deleted.statusCode, 204);
    const [task] = (await inject('GET', `${base()}/deletion_status/?person_uuid=${person.uuid}`)).json().results;
    assert.equal(task.kind, 'person');
    assert.equal((await inject('DELETE', `${base()}/deletion_status/${task.id}/`)).statusCode, 204);
    const result = await runDeletionBatch(ctx.deps);
    assert.equal(result.kinds.person.processed, 0);
    const left = await db
      .selectFrom('events')
      .select('id')
      .where('team_id', '=', tenant.project.id)
      .where('distinct_id', '=', 'd-1')
      .execute();
    assert.equal(left.length, 1);
  });

  it('404 for an unknown person or task; 403 without person:write', async () => {
    const db = ctx.deps.db;
    const person = await makePerson(db, tenant.project.id);
    const readOnly = await makeKey(db, tenant.owner, { scopes: ['person:read'] });
    assert.equal((await inject('POST', `${base()}/${person.id}/delete_events/`, bearer(readOnly))).statusCode, 403);
    assert.equal((await inject('POST', `${base()}/987654321/delete_events/`)).statusCode, 404);
    // A path that names no task, as every path parameter of the API.
    assert.equal((await inject('DELETE', `${base()}/deletion_status/abc/`)).statusCode, 404);
  });
});
