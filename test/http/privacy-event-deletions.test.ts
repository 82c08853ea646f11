import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makeKey, makePerson, makeTenant, type Tenant } from '../helpers/factories.ts';
import { countTeamEvents, insertEvents } from './privacy-seed.ts';

describe('/api/projects/:project_id/event_deletions/', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  const url = (suffix = '', team = tenant.project.id) => `/api/projects/${team}/event_deletions/${suffix}`;
  const create = (payload: unknown, headers = tenant.headers) =>
    ctx.app.inject({ method: 'POST', url: url(), headers, payload: payload as object });

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('refuses bad input with 400 naming the field, and writes nothing', async () => {
    const cases: [unknown, string][] = [
      [{ before: '2026-02-01' }, 'after'],
      [{ after: '2026-01-01' }, 'before'],
      [{ after: 'soon', before: '2026-02-01' }, 'after'],
      [{ after: '2026-01-01', before: '2026-01-01' }, 'before'],
      [
        { after: '2026-01-01', before: '2026-02-01', properties: [{ key: 'a', operator: 'bogus', value: 1 }] },
        'properties',
      ],
      [
        { after: '2026-01-01', before: '2026-02-01', properties: [{ key: 'id', value: 999999, type: 'cohort' }] },
        'properties',
      ],
      [{ after: '2026-01-01', before: '2026-02-01', scrub_properties: [] }, 'scrub_properties'],
      [{ after: '2026-01-01', before: '2026-02-01', event: '' }, 'event'],
    ];
    for (const [payload, attr] of cases) {
      const res = await create(payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().attr, attr, JSON.stringify(payload));
    }
    const listed = (await ctx.app.inject({ method: 'GET', url: url(), headers: tenant.headers })).json();
    assert.equal(listed.count, 0);
    const readOnly = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['person:read'] });
    assert.equal((await create({ after: '2026-01-01', before: '2026-02-01' }, bearer(readOnly))).statusCode, 403);
    assert.equal((await create({ after: '2026-01-01', before: '2026-02-01' }, other.headers)).statusCode, 403);
  });

  it('deletes the range’s matching events only, resumes after a kill without counting twice, touches no other project', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['r-1'] });
    const inRange = Array.from({ length: 7 }, (_, i) => ({
      distinctId: 'r-1',
      personId: person.id,
      event: '$pageview',
      timestamp: `2026-01-1${i}T00:00:00Z`,
      properties: { plan: 'pro' },
    }));
    await insertEvents(db, team, [
      ...inRange,
      // Out of range, another name, another property value: kept.
      {
        distinctId: 'r-1',
        personId: person.id,
        event: '$pageview',
        timestamp: '2026-02-01T00:00:00Z',
        properties: { plan: 'pro' },
      },
      {
        distinctId: 'r-1',
        personId: person.id,
        event: 'signup',
        timestamp: '2026-01-12T00:00:00Z',
        properties: { plan: 'pro' },
      },
      {
        distinctId: 'r-1',
        personId: person.id,
        event: '$pageview',
        timestamp: '2026-01-12T00:00:00Z',
        properties: { plan: 'free' },
      },
    ]);
    await insertEvents(
      db,
      other.project.id,
      inRange.map((spec) => ({ ...spec, personId: null })),
    );

    const res = await create({
      after: '2026-01-10T00:00:00Z',
      before: '2026-02-01T00:00:00Z',
      event: '$pageview',
      properties: [{ key: 'plan', value: 'pro', type: 'event' }],
    });
    assert.equal(res.statusCode, 201, res.body);
    const task = res.json();
    assert.equal(task.kind, 'events');
    assert.equal(task.status, 'pending');
    assert.equal(task.after, '2026-01-10T00:00:00.000Z');
    assert.deepEqual(task.properties, [{ key: 'plan', value: 'pro', type: 'event' }]);
    assert.equal(task.created_by.email, tenant.owner.email);

    // Killed after its first committed chunk of 3.
    await assert.rejects(
      runDeletionBatch(ctx.deps, {
        chunkSize: 3,
        onChunk: () => {
          throw new Error('killed');
        },
      }),
      /killed/,
    );
    let listed = (await ctx.app.inject({ method: 'GET', url: url(), headers: tenant.headers })).json();
    assert.equal(listed.results[0].status, 'pending');
    assert.equal(listed.results[0].events_deleted, 3);
    assert.notEqual(listed.results[0].started_at, null);
    // Started: no longer cancellable.
    assert.equal(
      (await ctx.app.inject({ method: 'DELETE', url: url(`${task.id}/`), headers: tenant.headers })).statusCode,
      409,
    );

    const result = await runDeletionBatch(ctx.deps, { chunkSize: 3 });
    assert.equal(result.kinds.events.events_deleted, 4);
    listed = (await ctx.app.inject({ method: 'GET', url: url(), headers: tenant.headers })).json();
    assert.equal(listed.results[0].status, 'completed');
    assert.equal(listed.results[0].events_deleted, 7);
    assert.equal(await countTeamEvents(db, team), 3);
    assert.equal(await countTeamEvents(db, other.project.id), 7);
    const entries = await db
      .selectFrom('activity_log')
      .select(['activity', 'user_id', 'detail'])
      .where('organization_id', '=', tenant.organization.id)
      .where('scope', '=', 'EventDeletion')
      .where('item_id', '=', String(task.id))
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      entries.map((entry) => [entry.activity, entry.user_id]),
      [
        ['queued', tenant.owner.id],
        ['completed', null],
      ],
    );
    assert.equal((entries[1].detail as { events_deleted: number }).events_deleted, 7);
  });

  it('scrubs keys from properties and the person snapshot, keeping the events', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    await insertEvents(db, team, [
      {
        distinctId: 's-1',
        timestamp: '2025-06-01T00:00:00Z',
        properties: { email: 'a@x', keep: 1 },
        personProperties: { email: 'a@x', name: 'A' },
      },
      {
        distinctId: 's-1',
        timestamp: '2025-06-02T00:00:00Z',
        properties: { keep: 2 },
        personProperties: { email: 'a@x' },
      },
      { distinctId: 's-1', timestamp: '2025-06-03T00:00:00Z', properties: { keep: 3 } },
      { distinctId: 's-1', timestamp: '2025-07-03T00:00:00Z', properties: { email: 'late@x' } },
    ]);
    const res = await create({ after: '2025-06-01', before: '2025-07-01', scrub_properties: ['email'] });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().kind, 'scrub');
    const result = await runDeletionBatch(ctx.deps, { chunkSize: 1 });
    assert.equal(result.kinds.scrub.events_scrubbed, 2);
    assert.equal(result.events_deleted, 0);
    const rows = await db
      .selectFrom('events')
      .select(['properties', 'person_properties'])
      .where('team_id', '=', team)
      .where('distinct_id', '=', 's-1')
      .orderBy('timestamp')
      .execute();
    assert.deepEqual(rows, [
      { properties: { keep: 1 }, person_properties: { name: 'A' } },
      { properties: { keep: 2 }, person_properties: {} },
      { properties: { keep: 3 }, person_properties: {} },
      { properties: { email: 'late@x' }, person_properties: {} },
    ]);
    const [listed] = (
      await ctx.app.inject({ method: 'GET', url: url('?status=completed'), headers: tenant.headers })
    ).json().results;
    assert.equal(listed.kind, 'scrub');
    assert.equal(listed.events_scrubbed, 2);
    assert.deepEqual(listed.scrub_properties, ['email']);
  });

  it('a cancelled task never runs; lists newest first, paged; another project sees none of it', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    await insertEvents(db, team, [{ distinctId: 'k-1', timestamp: '2024-05-05T00:00:00Z' }]);
    const task = (await create({ after: '2024-05-01', before: '2024-06-01' })).json();
    assert.equal(
      (await ctx.app.inject({ method: 'DELETE', url: url(`${task.id}/`, other.project.id), headers: other.headers }))
        .statusCode,
      404,
    );
    const cancelled = await ctx.app.inject({ method: 'DELETE', url: url(`${task.id}/`), headers: tenant.headers });
    assert.equal(cancelled.statusCode, 204);
    const result = await runDeletionBatch(ctx.deps);
    assert.equal(result.processed, 0);
    const left = await db
      .selectFrom('events')
      .select('id')
      .where('team_id', '=', team)
      .where('distinct_id', '=', 'k-1')
      .execute();
    assert.equal(left.length, 1);

    const page = (await ctx.app.inject({ method: 'GET', url: url('?limit=1'), headers: tenant.headers })).json();
    assert.equal(page.count, 3);
    assert.equal(page.results[0].id, task.id);
    assert.equal(page.results[0].status, 'cancelled');
    assert.match(page.next, /offset=1/);
    const cancelledOnly = (
      await ctx.app.inject({ method: 'GET', url: url('?status=cancelled'), headers: tenant.headers })
    ).json();
    assert.equal(cancelledOnly.count, 1);
    const bad = await ctx.app.inject({ method: 'GET', url: url('?status=done'), headers: tenant.headers });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().attr, 'status');
    const theirs = (
      await ctx.app.inject({ method: 'GET', url: url('', other.project.id), headers: other.headers })
    ).json();
    assert.equal(theirs.count, 0);
  });

  it('takes a cohort filter, resolved at the request, tested on the person properties stored on each event', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const cohort = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${team}/cohorts/`,
      headers: tenant.headers,
      payload: { name: 'Pro', filters: { properties: [{ key: 'plan', value: 'pro', type: 'person' }] } },
    });
    assert.equal(cohort.statusCode, 201, cohort.body);
    await insertEvents(db, team, [
      { distinctId: 'h-1', timestamp: '2023-05-02T00:00:00Z', personProperties: { plan: 'pro' } },
      { distinctId: 'h-2', timestamp: '2023-05-03T00:00:00Z', personProperties: { plan: 'pro' } },
      { distinctId: 'h-3', timestamp: '2023-05-04T00:00:00Z', personProperties: { plan: 'free' } },
    ]);
    const res = await create({
      after: '2023-05-01',
      before: '2023-06-01',
      properties: [{ key: 'id', value: cohort.json().id, type: 'cohort' }],
    });
    assert.equal(res.statusCode, 201, res.body);
    const result = await runDeletionBatch(ctx.deps);
    assert.equal(result.kinds.events.events_deleted, 2);
    const left = await db
      .selectFrom('events')
      .select('distinct_id')
      .where('team_id', '=', team)
      .where('timestamp', '<', new Date('2023-06-01T00:00:00Z'))
      .execute();
    assert.deepEqual(
      left.map((row) => row.distinct_id),
      ['h-3'],
    );
  });
});
