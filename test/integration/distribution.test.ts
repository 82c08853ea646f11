// The schema's placement on Citus (src/db/citus.ts): every table has one, `herd migrate` applies
// them once, and on plain PostgreSQL or PGlite nothing is distributed.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { distributeSchema, hasCitus, PLACEMENTS } from '../../src/db/citus.ts';
import { migrateDatabase } from '../../src/db/migrate.ts';
import * as definitionsMigration from '../../src/db/migrations/0017_definitions.ts';
import { citusWorkers } from '../helpers/citus.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { makeTenant } from '../helpers/factories.ts';
import { eventKey } from '../../src/db/person-key.ts';

const onCitus = citusWorkers() !== null;

describe(`the schema's placement (${onCitus ? 'Citus' : 'not Citus'})`, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.close());

  it('names a placement for every table of the schema, each once, after the tables it refers to', async () => {
    const { rows } = await sql<{ name: string }>`select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not like 'kysely\\_%'`.execute(
      database.db,
    );
    const placed = PLACEMENTS.map((placement) => placement.table);
    assert.equal(new Set(placed).size, placed.length, 'no table placed twice');
    assert.deepEqual([...placed].sort(), rows.map((row) => row.name).sort());
    const references = await sql<{
      child: string;
      parent: string;
    }>`select c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent
      from pg_constraint c join pg_namespace n on n.oid = c.connamespace where c.contype = 'f' and n.nspname = 'public'`.execute(
      database.db,
    );
    // (On a Citus coordinator the copies of reference tables, `organizations_102008`, have theirs too.)
    const tables = references.rows.filter(({ child, parent }) => placed.includes(child) && placed.includes(parent));
    assert.ok(tables.length >= 10, `the schema's foreign keys: ${tables.length}`);
    for (const { child, parent } of tables) {
      assert.ok(
        placed.indexOf(parent) < placed.indexOf(child),
        `${parent} is placed before ${child}, which refers to it`,
      );
    }
  });

  if (onCitus) {
    it('distributes each table as placed, co-locates the project tables, and a second run places nothing', async () => {
      const { rows } = await sql<{ table: string; method: string; column: string | null; colocation: number }>`
        select logicalrelid::regclass::text as table, partmethod as method,
          case when partmethod = 'h' then column_to_column_name(logicalrelid, partkey) end as column, colocationid as colocation
        from pg_dist_partition`.execute(database.db);
      const byTable = new Map(rows.map((row) => [row.table, row]));
      for (const placement of PLACEMENTS) {
        const row = byTable.get(placement.table);
        assert.ok(row, `${placement.table} is distributed`);
        if (placement.kind === 'reference') assert.equal(row.method, 'n', `${placement.table} is a reference table`);
        else
          assert.deepEqual(
            [row.method, row.column],
            ['h', placement.column],
            `${placement.table} is hash-distributed by ${placement.column}`,
          );
      }
      const projectTables = PLACEMENTS.filter(
        (placement) => placement.kind === 'distributed' && placement.column === 'team_id',
      );
      assert.equal(
        new Set(projectTables.map((placement) => byTable.get(placement.table)?.colocation)).size,
        1,
        'one co-location group',
      );
      // A static cohort's members on their events' shards (migration 0019).
      assert.equal(byTable.get('cohort_people')?.colocation, byTable.get('events')?.colocation);
      assert.deepEqual(await migrateDatabase(database.db), { applied: [], distributed: [] });
    });

    it('places the tables a later migration adds (Citus keeps them on the coordinator until then), with their rows', async () => {
      const tenant = await makeTenant(database.db);
      await database.db
        .insertInto('events')
        .values({
          team_id: tenant.project.id,
          uuid: crypto.randomUUID(),
          event: 'stored before',
          distinct_id: 'before',
          person_key: eventKey(null, 'before'),
          properties: JSON.stringify({ plan: 'pro' }),
          person_properties: '{}',
          timestamp: new Date(),
        })
        .execute();
      // Migration 0017 as a deployment that was distributed before it runs it.
      await database.db.transaction().execute((trx) => definitionsMigration.down(trx));
      await database.db.transaction().execute((trx) => definitionsMigration.up(trx));
      const added = ['event_definitions', 'property_definitions', 'event_properties', 'insights'];
      assert.deepEqual((await distributeSchema(database.db)).sort(), [...added].sort());
      const { rows } = await sql<{ table: string; method: string; colocation: number }>`
        select logicalrelid::regclass::text as table, partmethod as method, colocationid as colocation
        from pg_dist_partition where logicalrelid::regclass::text in ('persons', ${sql.join(added)})`.execute(
        database.db,
      );
      assert.equal(rows.length, 5);
      assert.ok(
        rows.every((row) => row.method === 'h' && row.colocation === rows[0].colocation),
        JSON.stringify(rows),
      );
      const names = await database.db
        .selectFrom('event_definitions')
        .select('name')
        .where('team_id', '=', tenant.project.id)
        .execute();
      assert.deepEqual(names, [{ name: 'stored before' }], 'the backfilled rows moved to the shards');
      assert.deepEqual(await migrateDatabase(database.db), { applied: [], distributed: [] });
    });

    it("spreads one project's events over every worker, by person key (a personless event by its distinct id's)", async () => {
      const tenant = await makeTenant(database.db);
      const distinctIds = Array.from({ length: 40 }, (_, i) => `spread-${i}`);
      await database.db
        .insertInto('events')
        .values(
          distinctIds.map((distinctId) => ({
            team_id: tenant.project.id,
            uuid: crypto.randomUUID(),
            event: 'spread',
            distinct_id: distinctId,
            person_key: eventKey(null, distinctId),
            properties: '{}',
            person_properties: '{}',
            timestamp: new Date(),
          })),
        )
        .execute();
      // Each shard asked for its own rows: where the events really are, not where they would go.
      const { rows } = await sql<{ nodes: number; shards: number }>`
        select count(distinct s.nodeport)::int as nodes, count(*)::int as shards
        from run_command_on_shards('events', $$select count(*) from %s where team_id = ${sql.lit(tenant.project.id)} and event = 'spread'$$) r
        join citus_shards s on s.shardid = r.shardid
        where r.success and r.result::int > 0`.execute(database.db);
      assert.equal(rows[0].nodes, citusWorkers()?.length);
      assert.ok(rows[0].shards > 10, `40 distinct ids fall in ${rows[0].shards} shards`);
    });

    it("the test connections refuse a query on a project table that is not routed to one shard, and let one project's events fan out, never all projects' events", async () => {
      const tenant = await makeTenant(database.db);
      const teamId = tenant.project.id;
      await assert.rejects(
        sql`select count(*) from persons`.execute(database.db),
        /multi-task query.*not routed to one shard/s,
      );
      await assert.rejects(sql`select count(*) from cohorts where id = 1`.execute(database.db), /multi-task query/);
      // A static cohort's members fan out as events do (by person), within one project only.
      await assert.rejects(
        sql`select count(*) from cohort_people where cohort_id = 1`.execute(database.db),
        /over cohort_people that names no project/,
      );
      const routed = await sql<{ n: string }>`select count(*) as n from persons where team_id = ${teamId}`.execute(
        database.db,
      );
      assert.equal(Number(routed.rows[0].n), 0);
      const spread = await sql<{ n: string }>`select count(*) as n from events where team_id = ${teamId}`.execute(
        database.db,
      );
      assert.equal(Number(spread.rows[0].n), 0);
      await assert.rejects(
        sql`select count(*) from events where event = 'spread'`.execute(database.db),
        /over events that names no project/,
      );
      // The check is back on after a query that was let fan out.
      await assert.rejects(sql`select count(*) from person_distinct_ids`.execute(database.db), /multi-task query/);
    });
  } else {
    it('distributes nothing without the citus extension', async () => {
      assert.equal(await hasCitus(database.db), false);
      assert.deepEqual(await distributeSchema(database.db), []);
      assert.deepEqual(await migrateDatabase(database.db), { applied: [], distributed: [] });
    });
  }
});
