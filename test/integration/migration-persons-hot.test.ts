// Migration 0020 over stored persons: email and name become generated columns the search indexes
// read, so a `$set` of any other property is a HOT update (no index entry written), and the
// persons list still finds stored persons by email and by a search of email or name. On Citus the
// deployment is one placed before 0020: every shard of persons gets the columns and the free space.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { distributeSchema } from '../../src/db/citus.ts';
import type { Db } from '../../src/db/handle.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { listPersons } from '../../src/modules/persons/persons.repository.ts';
import { citusWorkers } from '../helpers/citus.ts';
import { createEmptyTestDatabase } from '../helpers/db.ts';
import { makeTenant } from '../helpers/factories.ts';

const onCitus = citusWorkers() !== null;

test(`0020 keeps persons findable by email and name${onCitus ? ', on every shard of a cluster placed before it' : ''}`, async () => {
  const handle = await createEmptyTestDatabase();
  try {
    const db = handle.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    assert.equal((await migrator.migrateTo('0019_cohort_people_by_person')).error, undefined);
    if (onCitus) assert.ok((await distributeSchema(db)).includes('persons'));
    const tenant = await makeTenant(db);
    const teamId = tenant.project.id;
    const stored = [
      { email: 'ada@example.com', name: 'Ada Lovelace' },
      { email: 'bob@example.com', name: null },
      { email: null, name: 'Carol' },
      { email: 42, name: null },
    ];
    await db
      .insertInto('persons')
      .values(
        stored.map((properties) => ({
          team_id: teamId,
          uuid: crypto.randomUUID(),
          properties: JSON.stringify(properties),
          created_at: new Date(),
        })) as never,
      )
      .execute();

    const migrated = await migrateDatabase(db);
    assert.equal(migrated.applied[0], '0020_persons_hot_updates');

    const columns = await db
      .selectFrom('persons')
      .select(['email', 'name'])
      .where('team_id', '=', teamId)
      .orderBy('id')
      .execute();
    assert.deepEqual(columns, [
      { email: 'ada@example.com', name: 'Ada Lovelace' },
      { email: 'bob@example.com', name: null },
      { email: null, name: 'Carol' },
      { email: '42', name: null },
    ]);
    const emails = async (filters: Parameters<typeof listPersons>[2]) =>
      (await listPersons(db, teamId, filters, { limit: 10, offset: 0 })).map((row) => row.properties.email ?? null);
    assert.deepEqual(await emails({ email: 'bob@example.com' }), ['bob@example.com']);
    assert.deepEqual(await emails({ search: 'LOVELACE' }), ['ada@example.com']);
    assert.deepEqual(await emails({ search: 'example.com' }), ['bob@example.com', 'ada@example.com']);
    assert.deepEqual(
      await emails({
        properties: { type: 'AND', values: [{ key: 'name', value: 'car', operator: 'icontains', type: 'person' }] },
      }),
      [null],
    );

    if (onCitus) await assertOnEveryShard(db);
    else await assertHotUpdates(db, teamId);
  } finally {
    await handle.close();
  }
});

/** A change of another property updates the row in place; a change of email does not (its indexes change). */
async function assertHotUpdates(db: Db, teamId: number): Promise<void> {
  // The backend's counts not yet reported to the statistics (they may include earlier transactions'):
  // the difference across the update is its own.
  const hotCount = async (trx: Db) =>
    Number(
      (await sql<{ hot: string }>`select pg_stat_get_xact_tuples_hot_updated('persons'::regclass) as hot`.execute(trx))
        .rows[0].hot,
    );
  const hotUpdates = async (change: Record<string, unknown>) =>
    db.transaction().execute(async (trx) => {
      const before = await hotCount(trx);
      await sql`update persons set properties = properties || ${JSON.stringify(change)}::jsonb
        where team_id = ${teamId} and properties ->> 'name' = 'Ada Lovelace'`.execute(trx);
      return (await hotCount(trx)) - before;
    });
  assert.equal(await hotUpdates({ plan: 'pro', $browser: 'Firefox' }), 1, 'a $set of plan is a HOT update');
  assert.equal(await hotUpdates({ email: 'ada@lovelace.org' }), 0, 'a change of email writes its index entries');
  assert.equal(await hotUpdates({ plan: 'free' }), 1);
}

/** Each shard of persons has the columns, the indexes over them and the free space per page. */
async function assertOnEveryShard(db: Db): Promise<void> {
  const { rows } = await sql<{ result: string }>`
    select result from run_command_on_shards('persons', $$
      select (select reloptions::text from pg_class where oid = '%1$s'::regclass)
        || ' ' || (select count(*) from pg_indexes where tablename = '%1$s' and indexdef like '%%(email gin_trgm_ops)%%')
        || ' ' || (select count(*) from pg_attribute where attrelid = '%1$s'::regclass and attname in ('email', 'name') and attgenerated = 's')
    $$)`.execute(db);
  assert.ok(rows.length > 1);
  for (const row of rows) assert.equal(row.result, '{fillfactor=80} 1 2');
}
