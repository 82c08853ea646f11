// Capture looks up which events of a batch are stored already (SDK retries) by their key: one index
// probe per event, however many events the batch's distinct ids have and however stale the
// project's statistics are (a new project's events are not in them until ANALYZE).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { storedEventsSql, storedKey } from '../../src/ingestion/load-batch.step.ts';
import { EVERY_SHARD } from '../helpers/citus.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { makeTenant } from '../helpers/factories.ts';
import { eventKey, personlessKeySql } from '../../src/db/person-key.ts';

interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  [key: string]: unknown;
}

/** Rows every scan of `events` (or of one of its Citus shards) read, filtered out or not. */
function eventRowsRead(node: unknown): number {
  if (Array.isArray(node)) return node.reduce((sum: number, item) => sum + eventRowsRead(item), 0);
  if (typeof node !== 'object' || node === null) return 0;
  const plan = node as PlanNode;
  const own = plan['Relation Name']?.startsWith('events')
    ? ((plan['Actual Rows'] ?? 0) +
        (plan['Rows Removed by Filter'] ?? 0) +
        (plan['Rows Removed by Index Recheck'] ?? 0)) *
      (plan['Actual Loops'] ?? 1)
    : 0;
  return own + Object.values(plan).reduce((sum: number, value) => sum + eventRowsRead(value), 0);
}

describe('the retry lookup of capture', () => {
  let database: TestDatabase;
  let teamId: number;
  const stored = Array.from({ length: 2 }, () => crypto.randomUUID());

  before(async () => {
    database = await createTestDatabase();
    teamId = (await makeTenant(database.db)).project.id;
    // The statistics know another project's 20 000 events and none of this one's: its heavy
    // visitor's 3 000 events came after the last ANALYZE.
    const other = (await makeTenant(database.db)).project.id;
    await sql`insert into events (team_id, uuid, event, distinct_id, person_key, timestamp)
      select ${other}::integer, gen_random_uuid(), 'page', 'visitor-' || (g % 2000), ${personlessKeySql(sql`'visitor-' || (g % 2000)`)}, now() from generate_series(1, 20000) g`.execute(
      database.db,
    );
    // Statistics of every project's rows, as autovacuum takes them (on Citus, of every shard).
    await sql`${sql.raw(EVERY_SHARD)} analyze events`.execute(database.db);
    await sql`insert into events (team_id, uuid, event, distinct_id, person_key, timestamp)
      select ${teamId}::integer, case when g <= 2 then (${stored}::uuid[])[g] else gen_random_uuid() end, 'page', 'heavy', ${eventKey(null, 'heavy')}, now()
      from generate_series(1, 3000) g`.execute(database.db);
  });
  after(async () => database.close());

  it('finds the stored events of a batch reading one index entry per event', async () => {
    const given = [...stored, crypto.randomUUID(), crypto.randomUUID()].map((uuid) => ({ uuid, distinctId: 'heavy' }));
    given.push(
      { uuid: crypto.randomUUID(), distinctId: 'visitor-1' },
      { uuid: crypto.randomUUID(), distinctId: 'new' },
    );
    const lookup = storedEventsSql(teamId, given);
    const { rows } = await sql<{ stored: string[] }>`${lookup}`.execute(database.db);
    assert.deepEqual(new Set(rows[0].stored), new Set(stored.map((uuid) => storedKey(uuid, 'heavy'))));

    const explained = await sql<{ 'QUERY PLAN': unknown }>`explain (analyze, format json) ${lookup}`.execute(
      database.db,
    );
    const plan = explained.rows[0]['QUERY PLAN'];
    const read = eventRowsRead(typeof plan === 'string' ? JSON.parse(plan) : plan);
    assert.ok(read <= given.length, `read ${read} event rows for ${given.length} events`);
  });
});
