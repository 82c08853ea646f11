// On a database with the citus extension, `herd migrate` (and a starting server) distributes the
// schema after the migrations: once, in one transaction, and again only for a table a later
// migration adds. Plain PostgreSQL and PGlite are left as they are.
import { sql } from 'kysely';
import type { Db } from './handle.ts';
import { ADVISORY_LOCKS } from './advisory-locks.ts';

export type Placement =
  { table: string; kind: 'reference' } | { table: string; kind: 'distributed'; column: string; colocateWith: string };

/**
 * In this order: a table is placed after every table its foreign keys point to. Reference tables
 * (small, global, read with every request) are copied to every node, so any shard joins them locally.
 */
export const PLACEMENTS: readonly Placement[] = [
  { table: 'organizations', kind: 'reference' },
  { table: 'users', kind: 'reference' },
  { table: 'teams', kind: 'reference' },
  { table: 'personal_api_keys', kind: 'reference' },
  { table: 'organization_memberships', kind: 'reference' },
  { table: 'roles', kind: 'reference' },
  { table: 'role_memberships', kind: 'reference' },
  // A role's associated flags span every project of its organization: by team_id, listing a role
  // would read one shard per project. Flags are few per project (as grants are), so both tables are
  // copied everywhere and every role and flag query reads one node.
  { table: 'feature_flags', kind: 'reference' },
  { table: 'feature_flag_role_access', kind: 'reference' },
  // A project's persons, their ids, cohorts, deletions and counters live on one shard, so every request
  // of the persons API is routed to one worker, and their foreign keys and joins stay local.
  { table: 'persons', kind: 'distributed', column: 'team_id', colocateWith: 'none' },
  { table: 'person_distinct_ids', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  { table: 'cohorts', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  { table: 'deletion_tasks', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  { table: 'person_count_deltas', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  // A project's definitions and saved insights (migration 0017): each request reads one project's.
  { table: 'event_definitions', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  { table: 'property_definitions', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  { table: 'event_properties', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  { table: 'insights', kind: 'distributed', column: 'team_id', colocateWith: 'persons' },
  // Its key is (organization_id, id) and role entries belong to no project: by organization.
  { table: 'activity_log', kind: 'distributed', column: 'organization_id', colocateWith: 'none' },
  // The table without bound: by person key (migration 0018), so each person's events lie on one
  // shard and the per-person passes run there, while one project's events lie on every worker. The
  // key of a personless event is derived from its distinct id (src/db/person-key.ts); events move
  // between shards only when their person changes (a merge, the link of personless events).
  { table: 'events', kind: 'distributed', column: 'person_key', colocateWith: 'none' },
  // A static cohort's members beside their events (migration 0019): a view filtered by the cohort
  // tests each event against the members on its own shard. Read by cohort (its count, its list),
  // they fan out over the project's workers as its events do.
  { table: 'cohort_people', kind: 'distributed', column: 'person_id', colocateWith: 'events' },
  // Counted on every request of a key: by subject (`key:<id>`, `project:<id>`), so each claim is one
  // shard's single-row upsert, never a write to every node as a reference table's would be.
  { table: 'limit_windows', kind: 'distributed', column: 'subject', colocateWith: 'none' },
  { table: 'heavy_slot_leases', kind: 'distributed', column: 'subject', colocateWith: 'limit_windows' },
];

export async function hasCitus(db: Db): Promise<boolean> {
  const { rows } = await sql<{
    citus: boolean;
  }>`select exists (select 1 from pg_extension where extname = 'citus') as citus`.execute(db);
  return rows[0]?.citus === true;
}

/**
 * Distributes every table not yet placed; answers the tables it placed (none when not on Citus).
 * `placements`: PLACEMENTS, or (a test of a deployment placed before a migration) those of then.
 */
export async function distributeSchema(db: Db, placements: readonly Placement[] = PLACEMENTS): Promise<string[]> {
  if (!(await hasCitus(db))) return [];
  return db.transaction().execute(async (trx) => {
    // Two servers starting at once: the second waits, then finds everything placed.
    await sql`select pg_advisory_xact_lock(${ADVISORY_LOCKS.citusPlacement}::bigint)`.execute(trx);
    // Otherwise making `organizations` a reference table turns every table whose foreign key points
    // to it into a "citus local" table, which then can no longer be distributed.
    await sql`set local citus.enable_local_reference_table_foreign_keys = off`.execute(trx);
    // Shards created in this transaction get their foreign keys to reference tables created in it:
    // Citus requires one connection per node for that.
    await sql`set local citus.multi_shard_modify_mode = 'sequential'`.execute(trx);
    // The person-count triggers on `persons` (migration 0009) only write the co-located shard of
    // `person_count_deltas` on their own worker, which Citus allows from a trigger; it asks to be
    // told that such triggers are intended.
    await sql`set local citus.enable_unsafe_triggers = on`.execute(trx);
    // A table a later migration adds with a foreign key to a reference table (`teams`) is already
    // in the metadata, as a "citus local" table (kept on the coordinator): not placed yet.
    const { rows } = await sql<{
      table: string;
    }>`select logicalrelid::regclass::text as table from pg_dist_partition
      where partmethod = 'h' or repmodel = 't'`.execute(trx);
    const placed = new Set(rows.map((row) => row.table));
    const done: string[] = [];
    for (const placement of placements) {
      if (placed.has(placement.table)) continue;
      if (placement.kind === 'reference') {
        await sql`select create_reference_table(${placement.table})`.execute(trx);
      } else {
        await sql`select create_distributed_table(${placement.table}, ${placement.column}, colocate_with => ${placement.colocateWith})`.execute(
          trx,
        );
      }
      done.push(placement.table);
    }
    await disableShardJit(trx);
    return done;
  });
}

/**
 * herd's connections run without JIT (database.ts), but a distributed statement's shard queries run
 * in the coordinator's own connections to the workers, which take the role's defaults: with JIT on
 * there, every one of the 32 shard tasks compiled its expressions (~0.4 s each for the retention
 * insight's, where the query itself took 0.06 s). A default of the role in this database, which
 * Citus propagates to every worker; set again at each start, so a node added since gets it then.
 */
async function disableShardJit(db: Db): Promise<void> {
  const { rows } = await sql<{ name: string }>`select current_database() as name`.execute(db);
  await sql`alter role current_user in database ${sql.id(rows[0].name)} set jit = off`.execute(db);
}
