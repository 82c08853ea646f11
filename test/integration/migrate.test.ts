// A database that records every migration is passed by one read; any other record still goes to
// Kysely's migrator, which applies or refuses as it always did.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateDatabase } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

describe('migrating a database that is already migrated', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  it('up to date: nothing applied, nothing distributed', async () => {
    assert.deepEqual(await migrateDatabase(database.db), { applied: [], distributed: [] });
  });

  it('a recorded migration the code does not know is refused', async () => {
    await sql`insert into kysely_migration (name, timestamp) values ('9999_from_elsewhere', ${new Date().toISOString()})`.execute(
      database.db,
    );
    try {
      await assert.rejects(
        migrateDatabase(database.db),
        /previously executed migration 9999_from_elsewhere is missing/,
      );
    } finally {
      await sql`delete from kysely_migration where name = '9999_from_elsewhere'`.execute(database.db);
    }
  });

  it('migrations recorded out of their order are refused', async () => {
    const { rows } = await sql<{
      timestamp: string;
    }>`select timestamp from kysely_migration where name = '0001_initial'`.execute(database.db);
    await sql`update kysely_migration set timestamp = ${new Date(Date.now() + 60_000).toISOString()} where name = '0001_initial'`.execute(
      database.db,
    );
    try {
      await assert.rejects(
        migrateDatabase(database.db),
        /corrupted migrations: expected previously executed migration/,
      );
    } finally {
      await sql`update kysely_migration set timestamp = ${rows[0].timestamp} where name = '0001_initial'`.execute(
        database.db,
      );
    }
    assert.deepEqual(
      await migrateDatabase(database.db),
      { applied: [], distributed: [] },
      'and up to date again once restored',
    );
  });
});
