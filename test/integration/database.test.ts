// The database layer reads values the same way on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

describe('database values', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  it('reads timestamps of every year as the instant stored, years 1–99 included', async () => {
    const instants = ['0050-03-04T05:06:07.008Z', '0001-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z', '2026-11-22T10:00:00.123Z'];
    for (const instant of instants) {
      const { rows } = await sql<{ tz: Date }>`select ${instant}::timestamptz as tz`.execute(database.db);
      assert.ok(rows[0].tz instanceof Date);
      assert.equal(rows[0].tz.toISOString(), instant);
    }
  });

  it('reads int8 and numeric as numbers', async () => {
    const { rows } = await sql<{ big: number; num: number }>`select 9007199254740991::int8 as big, 12::numeric as num`.execute(database.db);
    assert.equal(rows[0].big, 9007199254740991);
    assert.equal(rows[0].num, 12);
  });
});
