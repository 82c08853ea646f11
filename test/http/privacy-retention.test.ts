import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, makeTenantMember, type Tenant } from '../helpers/factories.ts';
import { countTeamEvents, insertEvents } from './privacy-seed.ts';

describe('data retention: PATCH /api/projects/:id/ and the deletion batch', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  const patch = (payload: unknown, headers = tenant.headers, id = tenant.project.id) =>
    ctx.app.inject({ method: 'PATCH', url: `/api/projects/${id}/`, headers, payload: payload as object });

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('accepts 1 or more days or null, shows it on GET, refuses anything else with 400 naming the field', async () => {
    const get = async () =>
      (
        await ctx.app.inject({ method: 'GET', url: `/api/projects/${tenant.project.id}/`, headers: tenant.headers })
      ).json();
    assert.equal((await get()).data_retention_days, null);
    for (const bad of [0, -5, 1.5, 'ten', 100_000, true]) {
      const res = await patch({ data_retention_days: bad });
      assert.equal(res.statusCode, 400, `${JSON.stringify(bad)}: ${res.body}`);
      assert.equal(res.json().attr, 'data_retention_days');
    }
    const set = await patch({ data_retention_days: 30 });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().data_retention_days, 30);
    assert.equal((await get()).data_retention_days, 30);
    assert.equal((await patch({ data_retention_days: null })).json().data_retention_days, null);
    assert.equal((await get()).data_retention_days, null);
    const entries = await ctx.deps.db
      .selectFrom('activity_log')
      .select(['scope', 'activity', 'detail'])
      .where('organization_id', '=', tenant.organization.id)
      .where('scope', '=', 'Project')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    assert.deepEqual(
      entries.map((entry) => (entry.detail as { changes: { after: unknown }[] }).changes[0].after),
      [30, null],
    );
  });

  it('needs an admin of the project’s organization; another organization’s project is not writable', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    assert.equal((await patch({ data_retention_days: 5 }, member.headers)).statusCode, 403);
    assert.equal((await patch({ data_retention_days: 5 }, other.headers)).statusCode, 403);
    const project = await ctx.deps.db
      .selectFrom('teams')
      .select('data_retention_days')
      .where('id', '=', tenant.project.id)
      .executeTakeFirstOrThrow();
    assert.equal(project.data_retention_days, null);
  });

  it('the batch deletes the project’s events older than the period, in chunks, resumable, and no other project’s', async () => {
    const db = ctx.deps.db;
    ctx.clock.set('2026-06-30T00:00:00Z');
    const old = Array.from({ length: 5 }, (_, i) => ({ distinctId: `o-${i}`, timestamp: `2026-05-2${i}T00:00:00Z` }));
    await insertEvents(db, tenant.project.id, [...old, { distinctId: 'o-1', timestamp: '2026-06-10T00:00:00Z' }]);
    await insertEvents(db, other.project.id, old);
    assert.equal((await patch({ data_retention_days: 30 })).statusCode, 200);

    await assert.rejects(
      runDeletionBatch(ctx.deps, {
        chunkSize: 2,
        onChunk: () => {
          throw new Error('killed');
        },
      }),
      /killed/,
    );
    assert.equal(await countTeamEvents(db, tenant.project.id), 4);
    // The next run resumes the pending retention task (no second one is queued).
    ctx.clock.set('2026-06-30T01:00:00Z');
    const result = await runDeletionBatch(ctx.deps, { chunkSize: 2 });
    assert.equal(result.kinds.retention.processed, 1);
    assert.equal(result.kinds.retention.events_deleted, 3);
    assert.equal(await countTeamEvents(db, tenant.project.id), 1);
    assert.equal(await countTeamEvents(db, other.project.id), 5);

    const listed = (
      await ctx.app.inject({
        method: 'GET',
        url: `/api/projects/${tenant.project.id}/event_deletions/`,
        headers: tenant.headers,
      })
    ).json();
    assert.equal(listed.count, 1);
    assert.equal(listed.results[0].kind, 'retention');
    assert.equal(listed.results[0].status, 'completed');
    assert.equal(listed.results[0].before, '2026-05-31T00:00:00.000Z');
    assert.equal(listed.results[0].events_deleted, 5);
    assert.equal(listed.results[0].created_by, null);

    // Each run queues a new one with the cut-off of its own time; nothing older is left to delete.
    ctx.clock.set('2026-07-20T00:00:00Z');
    const next = await runDeletionBatch(ctx.deps);
    assert.equal(next.kinds.retention.processed, 1);
    assert.equal(next.kinds.retention.events_deleted, 1);
    assert.equal(await countTeamEvents(db, tenant.project.id), 0);
  });
});
