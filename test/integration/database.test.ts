// The database layer reads values the same way on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type pg from 'pg';
import { openPostgres } from '../../src/db/database.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

describe('database values', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  it('reads timestamps of every year as the instant stored, years 1–99 included', async () => {
    const instants = [
      '0050-03-04T05:06:07.008Z',
      '0001-01-01T00:00:00.000Z',
      '1999-12-31T23:59:59.999Z',
      '2026-11-22T10:00:00.123Z',
    ];
    for (const instant of instants) {
      const { rows } = await sql<{ tz: Date }>`select ${instant}::timestamptz as tz`.execute(database.db);
      assert.ok(rows[0].tz instanceof Date);
      assert.equal(rows[0].tz.toISOString(), instant);
    }
  });

  it('reads int8 and numeric as numbers', async () => {
    const { rows } = await sql<{
      big: number;
      num: number;
    }>`select 9007199254740991::int8 as big, 12::numeric as num`.execute(database.db);
    assert.equal(rows[0].big, 9007199254740991);
    assert.equal(rows[0].num, 12);
  });
});

// A PostgreSQL restart, a failover or an administrator ends the pool's idle connections: the pool
// drops them and opens new ones, and nothing else happens (an 'error' nobody listened for was an
// uncaught exception: the whole process went down). PGlite runs in the process: no connection to end.
if (process.env.TEST_DATABASE_URL) {
  describe('connections the server ends', () => {
    let database: TestDatabase;
    before(async () => {
      database = await createTestDatabase();
    });
    after(() => database.close());

    it('are replaced when an idle one is terminated', async () => {
      const handle = await openPostgres(database.connection as pg.PoolConfig, 3);
      try {
        // Three connections at once, then idle in the pool.
        await Promise.all([1, 2, 3].map(() => sql`select pg_sleep(0.05)`.execute(handle.db)));
        const ended = await sql<{ n: number }>`select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state = 'idle' and application_name <> 'herd access listener'`.execute(
          database.db,
        );
        assert.ok(ended.rows[0].n >= 3, `ended ${ended.rows[0].n} idle connections`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        const { rows } = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
        assert.equal(rows[0].one, 1);
      } finally {
        await handle.close();
      }
    });
  });
}
