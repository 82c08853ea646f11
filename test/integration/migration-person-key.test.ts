// Migration 0018 over stored events: every event gets its person key (its person's id, or its
// distinct id's personless key), keeps its id, uuid and page, and new events draw ids after the
// copied ones. On Citus the deployment is one placed before 0018 (events distributed by
// distinct_id): afterwards events are distributed by person_key, each person's events (under all
// its distinct ids) on one shard, and one project's events still on every worker.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { distributeSchema } from '../../src/db/citus.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { personlessKeySql } from '../../src/db/person-key.ts';
import { citusWorkers, placementsBefore } from '../helpers/citus.ts';
import { createEmptyTestDatabase } from '../helpers/db.ts';
import { makeTenant } from '../helpers/factories.ts';

const onCitus = citusWorkers() !== null;

test(`0018 keys stored events by person${onCitus ? ', redistributing a cluster placed by distinct id' : ''}`, async () => {
  const handle = await createEmptyTestDatabase();
  try {
    const db = handle.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    assert.equal((await migrator.migrateTo('0017_definitions')).error, undefined);
    if (onCitus) {
      const before = placementsBefore('0018_events_person_key');
      assert.ok((await distributeSchema(db, before)).includes('events'));
    }
    const tenant = await makeTenant(db);
    const teamId = tenant.project.id;
    // 40 persons of one event each, one person of two distinct ids, and personless events of two ids.
    const persons = await db
      .insertInto('persons')
      .values(
        Array.from({ length: 41 }, () => ({
          team_id: teamId,
          uuid: crypto.randomUUID(),
          properties: '{}',
          created_at: new Date(),
        })),
      )
      .returning('id')
      .execute();
    const [alice, ...others] = persons.map((row) => row.id);
    const rows = [
      ...others.map((id) => ({ distinct_id: `user-${id}`, person_id: id as number | null, event: 'signup' })),
      { distinct_id: 'alice-phone', person_id: alice, event: '$pageview' },
      { distinct_id: 'alice-laptop', person_id: alice, event: '$pageview' },
      { distinct_id: 'alice-laptop', person_id: alice, event: 'purchase' },
      { distinct_id: 'anon-1', person_id: null, event: '$pageview' },
      { distinct_id: 'anon-1', person_id: null, event: '$pageview' },
      { distinct_id: 'anon-2', person_id: null, event: '$pageview' },
    ];
    await db
      .insertInto('events')
      .values(
        // The schema of 0017: events have no person_key yet.
        rows.map((row, i) => ({
          team_id: teamId,
          uuid: crypto.randomUUID(),
          properties: JSON.stringify({ $current_url: `/page/${i}` }),
          person_properties: '{}',
          timestamp: new Date(Date.UTC(2024, 0, 1, 0, i)),
          ...row,
        })) as never,
      )
      .execute();
    const stored = await sql<{ id: number; uuid: string; page: string | null }>`
      select id, uuid, page from events where team_id = ${teamId} order by id`.execute(db);

    const migrated = await migrateDatabase(db);
    // Later migrations run after it (they are tested on their own).
    assert.equal(migrated.applied[0], '0018_events_person_key');
    assert.deepEqual(migrated.distributed, [], 'events were placed by the migration itself');

    const after = await sql<{
      id: number;
      uuid: string;
      page: string | null;
      distinct_id: string;
      person_id: number | null;
      person_key: number;
    }>`
      select id, uuid, page, distinct_id, person_id, person_key from events where team_id = ${teamId} order by id`.execute(
      db,
    );
    assert.deepEqual(
      after.rows.map(({ id, uuid, page }) => ({ id, uuid, page })),
      stored.rows,
      'every event kept its id, uuid and page',
    );
    const anonKeys = await sql<{ a: number; b: number }>`
      select ${personlessKeySql(sql`'anon-1'::text`)} as a, ${personlessKeySql(sql`'anon-2'::text`)} as b`.execute(db);
    const keyOf = (row: { distinct_id: string; person_id: number | null }) =>
      row.person_id ?? (row.distinct_id === 'anon-1' ? Number(anonKeys.rows[0].a) : Number(anonKeys.rows[0].b));
    for (const row of after.rows) assert.equal(Number(row.person_key), keyOf(row), JSON.stringify(row));
    assert.ok(Number(anonKeys.rows[0].a) < 0 && Number(anonKeys.rows[0].b) < 0, 'personless keys are negative');
    // A new event draws an id after the copied ones, and the rule of the key is held.
    const next = await sql<{
      id: number;
    }>`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, timestamp)
      values (${teamId}, ${crypto.randomUUID()}, 'later', 'alice-phone', ${alice}, ${alice}, now()) returning id`.execute(
      db,
    );
    assert.ok(Number(next.rows[0].id) > Math.max(...stored.rows.map((row) => Number(row.id))));
    await assert.rejects(
      sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, timestamp)
        values (${teamId}, ${crypto.randomUUID()}, 'wrong', 'alice-phone', ${alice}, ${alice + 1}, now())`.execute(db),
      /events_person_key/,
    );

    if (onCitus) {
      const placed = await sql<{ column: string }>`select column_to_column_name(logicalrelid, partkey) as column
        from pg_dist_partition where logicalrelid = 'events'::regclass`.execute(db);
      assert.deepEqual(placed.rows, [{ column: 'person_key' }]);
      // Each shard asked for its own rows: where the events really are.
      const shardsOf = async (condition: string) =>
        (
          await sql<{ nodes: number; shards: number }>`
          select count(distinct s.nodeport)::int as nodes, count(*)::int as shards
          from run_command_on_shards('events', ${`select count(*) from %s where team_id = ${teamId} and ${condition}`}) r
          join citus_shards s on s.shardid = r.shardid
          where r.success and r.result::int > 0`.execute(db)
        ).rows[0];
      assert.deepEqual(await shardsOf(`person_id = ${alice}`), { nodes: 1, shards: 1 }, "alice's events on one shard");
      const spread = await shardsOf('true');
      assert.equal(spread.nodes, citusWorkers()?.length, "the project's events on every worker");
      assert.ok(spread.shards > 10, `41 persons' events fall in ${spread.shards} shards`);
    }
  } finally {
    await handle.close();
  }
});
