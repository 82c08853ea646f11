// Migration 0019 over stored members: every static cohort's member rows survive, the foreign keys to
// `cohorts` and `persons` are gone and the one to `teams` takes the project's rows with it. On Citus
// the deployment is one placed before 0019 (members by team_id, beside the persons): afterwards they
// are distributed by person_id, co-located with events, each member row on its person's events' shard.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { distributeSchema } from '../../src/db/citus.ts';
import type { Db } from '../../src/db/handle.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { citusWorkers, placementsBefore } from '../helpers/citus.ts';
import { createEmptyTestDatabase } from '../helpers/db.ts';
import { makeTenant } from '../helpers/factories.ts';

const onCitus = citusWorkers() !== null;

test(`0019 keeps static cohorts' members${onCitus ? ', moving them beside their events on a cluster placed by project' : ''}`, async () => {
  const handle = await createEmptyTestDatabase();
  try {
    const db = handle.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    assert.equal((await migrator.migrateTo('0018_events_person_key')).error, undefined);
    if (onCitus) {
      const before = placementsBefore('0019_cohort_people_by_person');
      assert.ok((await distributeSchema(db, before)).includes('cohort_people'));
    }
    const tenant = await makeTenant(db);
    const teamId = tenant.project.id;
    const persons = (
      await db
        .insertInto('persons')
        .values(
          Array.from({ length: 30 }, () => ({
            team_id: teamId,
            uuid: crypto.randomUUID(),
            properties: '{}',
            created_at: new Date(),
          })),
        )
        .returning('id')
        .execute()
    ).map((row) => row.id);
    const cohorts = (
      await db
        .insertInto('cohorts')
        .values([
          { team_id: teamId, name: 'all', is_static: true, created_at: new Date() },
          { team_id: teamId, name: 'some', is_static: true, created_at: new Date() },
        ])
        .returning('id')
        .execute()
    ).map((row) => row.id);
    const stored = [
      ...persons.map((person) => ({ cohort_id: cohorts[0], person_id: person })),
      ...persons.slice(0, 5).map((person) => ({ cohort_id: cohorts[1], person_id: person })),
    ];
    await db
      .insertInto('cohort_people')
      .values(stored.map((row) => ({ team_id: teamId, ...row })))
      .execute();
    // One event of each person, so that the members' shards can be compared with their events'.
    await db
      .insertInto('events')
      .values(
        persons.map((person) => ({
          team_id: teamId,
          uuid: crypto.randomUUID(),
          event: 'signup',
          distinct_id: `user-${person}`,
          person_id: person,
          person_key: person,
          properties: '{}',
          person_properties: '{}',
          timestamp: new Date(),
        })),
      )
      .execute();

    const migrated = await migrateDatabase(db);
    assert.equal(migrated.applied[0], '0019_cohort_people_by_person');
    assert.deepEqual(migrated.distributed, [], 'the members were placed by the migration itself');
    if (onCitus) await assertBesideEvents(db);

    const members = await db
      .selectFrom('cohort_people')
      .select(['cohort_id', 'person_id'])
      .where('team_id', '=', teamId)
      .orderBy('cohort_id')
      .orderBy('person_id')
      .execute();
    assert.deepEqual(members, stored, 'every member row kept');
    const keys = await sql<{ name: string; parent: string }>`
      select conname as name, confrelid::regclass::text as parent from pg_constraint
      where conrelid = 'cohort_people'::regclass and contype = 'f'`.execute(db);
    assert.deepEqual(keys.rows, [{ name: 'cohort_people_team_id_fkey', parent: 'teams' }]);
    // A member of no person (the code deletes a person's rows itself) no longer fails: the key is gone.
    await db
      .insertInto('cohort_people')
      .values({ team_id: teamId, cohort_id: cohorts[1], person_id: 999_999 })
      .execute();
    // The project's rows go with it, through the key to `teams`.
    await db.deleteFrom('teams').where('id', '=', teamId).execute();
    const left = await db.selectFrom('cohort_people').select('person_id').where('team_id', '=', teamId).execute();
    assert.deepEqual(left, []);
  } finally {
    await handle.close();
  }
});

test(`a new database places static cohorts' members${onCitus ? ' beside their events' : ''}`, async () => {
  const handle = await createEmptyTestDatabase();
  try {
    await migrateDatabase(handle.db);
    if (onCitus) await assertBesideEvents(handle.db);
    const keys = await sql<{ parent: string }>`select confrelid::regclass::text as parent from pg_constraint
      where conrelid = 'cohort_people'::regclass and contype = 'f'`.execute(handle.db);
    assert.deepEqual(keys.rows, [{ parent: 'teams' }]);
  } finally {
    await handle.close();
  }
});

/** On Citus: `cohort_people` by person_id, co-located with events, so a person's member rows and events share a shard. */
async function assertBesideEvents(db: Db): Promise<void> {
  const placed = await sql<{ column: string; colocated: boolean }>`
    select column_to_column_name(c.logicalrelid, c.partkey) as column, c.colocationid = e.colocationid as colocated
    from pg_dist_partition c, pg_dist_partition e
    where c.logicalrelid = 'cohort_people'::regclass and e.logicalrelid = 'events'::regclass`.execute(db);
  assert.deepEqual(placed.rows, [{ column: 'person_id', colocated: true }]);
  // Co-located shards hold the same hash ranges, each pair on one node.
  const pairs = await sql<{ same: boolean }>`
    select bool_and(c.shardminvalue = e.shardminvalue and c.shardmaxvalue = e.shardmaxvalue and cp.nodeport = ep.nodeport) as same
    from pg_dist_shard c
    join pg_dist_shard e on e.logicalrelid = 'events'::regclass and e.shardminvalue = c.shardminvalue
    join citus_shards cp on cp.shardid = c.shardid
    join citus_shards ep on ep.shardid = e.shardid
    where c.logicalrelid = 'cohort_people'::regclass`.execute(db);
  assert.deepEqual(pairs.rows, [{ same: true }]);
}
