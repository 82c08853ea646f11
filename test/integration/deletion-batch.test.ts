import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openPostgres } from '../../src/db/database.ts';
import type { Deps } from '../../src/deps.ts';
import { runDeletionBatch, type DeletionBatchResult } from '../../src/jobs/deletion-batch.ts';
import { DELETION_LOCK_KEY } from '../../src/modules/deletions/deletions.repository.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeProject, makeTenant, type Tenant } from '../helpers/factories.ts';
import { countEvents, deletePersonQueuingEvents, findTask, seedEvents, totalsOf } from './deletion-seed.ts';

describe('deletion batch', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  test('deletes exactly the queued person’s events, by person id and by distinct id, once', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const otherProject = await makeProject(db, tenant.organization);
    const otherTenant = await makeTenant(db);

    const doomed = await makePerson(db, team, { distinctIds: ['d-1', 'd-2'] });
    const kept = await makePerson(db, team, { distinctIds: ['k-1'] });
    await seedEvents(db, team, 'd-1', doomed.id, 3); // by person id
    await seedEvents(db, team, 'd-2', null, 2); // by distinct id, no person
    await seedEvents(db, team, 'd-2', 987_654_321, 1); // by distinct id, a person merged away long ago
    await seedEvents(db, team, 'k-1', kept.id, 4);
    // The same distinct id in other projects, and an event of another project naming the person id.
    const stranger = await makePerson(db, otherProject.id, { distinctIds: ['d-1'] });
    await seedEvents(db, otherProject.id, 'd-1', stranger.id, 5);
    await seedEvents(db, otherTenant.project.id, 'd-1', doomed.id, 2);

    const now = new Date('2026-11-20T10:00:00Z');
    await deletePersonQueuingEvents(db, doomed, { createdById: tenant.owner.id, now });
    // After the delete, capture hands d-1 to a NEW person; its events are not the queued person's.
    const newcomer = await makePerson(db, team, { distinctIds: ['d-1'] });
    await seedEvents(db, team, 'd-1', newcomer.id, 2);

    ctx.clock.set('2026-11-22T05:00:00Z');
    const messages: string[] = [];
    const result = await runDeletionBatch(ctx.deps, { onProgress: (message) => messages.push(message) });
    assert.deepEqual(totalsOf(result), { processed: 1, events_deleted: 6 });
    assert.ok(messages.length >= 2, 'progress is reported');

    assert.equal(await countEvents(db, team, { personId: doomed.id }), 0);
    assert.equal(await countEvents(db, team, { distinctId: 'd-2' }), 0);
    assert.equal(await countEvents(db, team, { personId: kept.id }), 4);
    assert.equal(await countEvents(db, team, { personId: newcomer.id }), 2);
    assert.equal(await countEvents(db, otherProject.id), 5);
    assert.equal(await countEvents(db, otherTenant.project.id), 2);

    const task = await findTask(db, team, doomed.uuid);
    assert.equal(task.events_deleted, 6);
    assert.equal(task.delete_verified_at?.toISOString(), '2026-11-22T05:00:00.000Z');

    const activity = await db
      .selectFrom('activity_log')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('activity', '=', 'deletion_completed')
      .execute();
    assert.equal(activity.length, 1);
    assert.equal(activity[0].scope, 'Person');
    assert.equal(activity[0].item_id, String(doomed.id));
    assert.equal(activity[0].team_id, team);
    assert.equal(activity[0].organization_id, tenant.organization.id);
    assert.equal(activity[0].user_id, null);
    assert.deepEqual(activity[0].detail, { changes: null, name: doomed.uuid });

    // Done is done: the next run finds nothing to do and deletes nothing.
    assert.deepEqual(totalsOf(await runDeletionBatch(ctx.deps)), { processed: 0, events_deleted: 0 });
    assert.equal(await countEvents(db, team, { personId: newcomer.id }), 2);
  });

  test('queueEventDeletions with an organization records deletion_queued', async () => {
    const db = ctx.deps.db;
    const person = await makePerson(db, tenant.project.id, { distinctIds: ['q-1'] });
    await deletePersonQueuingEvents(db, person, {
      createdById: tenant.owner.id,
      organizationId: tenant.organization.id,
    });
    const entry = await db
      .selectFrom('activity_log')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('activity', '=', 'deletion_queued')
      .where('item_id', '=', String(person.id))
      .executeTakeFirstOrThrow();
    assert.equal(entry.user_id, tenant.owner.id);
    assert.deepEqual(entry.detail, { changes: null, name: person.uuid });
    assert.deepEqual(totalsOf(await runDeletionBatch(ctx.deps)), { processed: 1, events_deleted: 0 });
  });

  test('a batch stopped after a chunk stays pending and the next run finishes it', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['i-1'] });
    const bystander = await makePerson(db, team, { distinctIds: ['i-2'] });
    await seedEvents(db, team, 'i-1', person.id, 4);
    await seedEvents(db, team, 'i-1', null, 1);
    await seedEvents(db, team, 'i-2', bystander.id, 3);
    await deletePersonQueuingEvents(db, person);

    // A crash right after the first committed chunk.
    let chunks = 0;
    await assert.rejects(
      runDeletionBatch(ctx.deps, {
        chunkSize: 2,
        onChunk: () => {
          chunks += 1;
          throw new Error('killed');
        },
      }),
      /killed/,
    );
    assert.equal(chunks, 1);
    let task = await findTask(db, team, person.uuid);
    assert.equal(task.delete_verified_at, null, 'not verified while events remain');
    assert.equal(task.events_deleted, 2);
    assert.equal(await countEvents(db, team, { distinctId: 'i-1' }), 3);

    // Stopped (as on shutdown) after one more chunk: still pending.
    const controller = new AbortController();
    await assert.rejects(
      runDeletionBatch(ctx.deps, {
        chunkSize: 2,
        onChunk: () => controller.abort(new Error('stopping')),
        signal: controller.signal,
      }),
      /stopping/,
    );
    task = await findTask(db, team, person.uuid);
    assert.equal(task.delete_verified_at, null);
    assert.equal(task.events_deleted, 4);
    assert.equal(await countEvents(db, team, { distinctId: 'i-1' }), 1);

    // The lock was released by the failed runs: the next run takes it and completes the task.
    const seen: boolean[] = [];
    const result = await runDeletionBatch(ctx.deps, { chunkSize: 2, onChunk: (chunk) => seen.push(chunk.completed) });
    assert.deepEqual(totalsOf(result), { processed: 1, events_deleted: 1 });
    assert.deepEqual(seen, [true]);
    task = await findTask(db, team, person.uuid);
    assert.notEqual(task.delete_verified_at, null);
    assert.equal(task.events_deleted, 5);
    assert.equal(await countEvents(db, team, { distinctId: 'i-1' }), 0);
    assert.equal(await countEvents(db, team, { personId: bystander.id }), 3);
  });

  test('a chunk that deletes exactly the chunk size does not verify; the empty one after it does', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const person = await makePerson(db, team, { distinctIds: ['e-1'] });
    await seedEvents(db, team, 'e-1', person.id, 4);
    await deletePersonQueuingEvents(db, person);
    const chunks: Array<{ deleted: number; completed: boolean }> = [];
    const result = await runDeletionBatch(ctx.deps, {
      chunkSize: 2,
      onChunk: ({ deleted, completed }) => chunks.push({ deleted, completed }),
    });
    assert.deepEqual(totalsOf(result), { processed: 1, events_deleted: 4 });
    assert.deepEqual(chunks, [
      { deleted: 2, completed: false },
      { deleted: 2, completed: false },
      { deleted: 0, completed: true },
    ]);
  });

  test('two runners at once delete once and report once', async () => {
    const db = ctx.deps.db;
    const team = tenant.project.id;
    const persons = [];
    let total = 0;
    for (let i = 0; i < 3; i++) {
      const person = await makePerson(db, team, { distinctIds: [`c-${i}`] });
      await seedEvents(db, team, `c-${i}`, person.id, 5 + i);
      await seedEvents(db, team, `c-${i}`, null, 2);
      total += 7 + i;
      persons.push(person);
    }
    const survivor = await makePerson(db, team, { distinctIds: ['c-survivor'] });
    await seedEvents(db, team, 'c-survivor', survivor.id, 3);
    for (const person of persons) await deletePersonQueuingEvents(db, person);

    // Two servers on one PostgreSQL: a second pool. PGlite is one process with one handle: the same
    // two calls share it, and the totals must be the same.
    const second = ctx.database.connection ? await openPostgres(ctx.database.connection, 2) : null;
    try {
      const other: Deps = second ? { ...ctx.deps, db: second.db } : ctx.deps;
      const results: DeletionBatchResult[] = await Promise.all([
        runDeletionBatch(ctx.deps, { chunkSize: 2 }),
        runDeletionBatch(other, { chunkSize: 2 }),
      ]);
      assert.equal(results[0].processed + results[1].processed, 3);
      assert.equal(results[0].events_deleted + results[1].events_deleted, total);
      assert.ok(
        results.some((result) => result.processed === 0 && result.events_deleted === 0),
        'one runner did nothing',
      );
      for (const person of persons) {
        const task = await findTask(db, team, person.uuid);
        assert.equal(task.events_deleted, 7 + persons.indexOf(person));
        assert.notEqual(task.delete_verified_at, null);
      }
      const completions = await db
        .selectFrom('activity_log')
        .select('item_id')
        .where('organization_id', '=', tenant.organization.id)
        .where('activity', '=', 'deletion_completed')
        .where(
          'item_id',
          'in',
          persons.map((person) => String(person.id)),
        )
        .execute();
      assert.equal(completions.length, 3, 'each task completes once');
      assert.equal(await countEvents(db, team, { personId: survivor.id }), 3);

      if (second) {
        // While another server holds the lock, a run does nothing and says so.
        const late = await makePerson(db, team, { distinctIds: ['c-late'] });
        await seedEvents(db, team, 'c-late', late.id, 2);
        await deletePersonQueuingEvents(db, late);
        await second.db.connection().execute(async (conn) => {
          await sql`select pg_advisory_lock(${DELETION_LOCK_KEY}::bigint)`.execute(conn);
          try {
            const messages: string[] = [];
            assert.deepEqual(
              totalsOf(await runDeletionBatch(ctx.deps, { onProgress: (message) => messages.push(message) })),
              { processed: 0, events_deleted: 0 },
            );
            assert.match(messages.join('\n'), /another runner/);
            assert.equal((await findTask(db, team, late.uuid)).delete_verified_at, null);
          } finally {
            await sql`select pg_advisory_unlock(${DELETION_LOCK_KEY}::bigint)`.execute(conn);
          }
        });
        assert.deepEqual(totalsOf(await runDeletionBatch(ctx.deps)), { processed: 1, events_deleted: 2 });
      }
    } finally {
      await second?.close();
    }
  });
});
