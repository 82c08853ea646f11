// Applies every pending migration. A database that records every migration already is told so by
// one read: Kysely's migrator would find nothing to do after introspecting every table's columns
// twice and taking its lock, which is most of a start on an embedded database whose catalogs are
// cold. Otherwise the whole migration runs on one connection under a session-level advisory lock
// (MIGRATION_LOCK), so two migrators or servers that start at once on one PostgreSQL run each
// migration exactly once. On Citus the schema is then distributed (src/db/citus.ts).
import { Migrator, sql, type MigrationResultSet } from 'kysely';
import { distributeSchema } from './citus.ts';
import type { DatabaseHandle, Db } from './handle.ts';
import { migrations } from './migrations/index.ts';
import { ADVISORY_LOCKS } from './advisory-locks.ts';

export interface MigrationOutcome {
  applied: string[];
  /** Tables this run distributed on Citus (empty elsewhere, and once all are placed). */
  distributed: string[];
}

/**
 * Whether the database records exactly these migrations, in the order the migrator reads them
 * (applied time, then name): then it would apply nothing and refuse nothing. Anything else (no
 * table yet, a pending, missing or reordered migration) is left to the migrator.
 */
async function isUpToDate(db: Db): Promise<boolean> {
  const { rows: table } = await sql<{
    present: boolean;
  }>`select to_regclass('kysely_migration') is not null as present`.execute(db);
  if (table[0]?.present !== true) return false;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by timestamp, name`.execute(db);
  const expected = Object.keys(migrations).sort();
  return rows.length === expected.length && rows.every((row, i) => row.name === expected[i]);
}

/**
 * The key of the session-level advisory lock held from before Kysely's migrator creates its tables
 * until it is done. Kysely takes its own lock only after creating `kysely_migration` outside any
 * lock and checking for it by introspection; under load that check once failed with `relation
 * "public.kysely_migration" does not exist`: its query found the table in pg_class while the name
 * lookup in its `pg_get_serial_sequence` did not (a catalog race with the other migrator's `create
 * table`). Under this lock no migrator introspects while another creates.
 */
export const MIGRATION_LOCK = ADVISORY_LOCKS.migration;

async function runMigrator(db: Db): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * Migrates on one connection that holds MIGRATION_LOCK (on PGlite, the only connection: a second
 * migrator in the process waits for it). Whoever waited finds the work done by one read.
 */
async function migrateLocked(db: Db): Promise<string[]> {
  return db.connection().execute(async (session) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK}::bigint)`.execute(session);
    try {
      return (await isUpToDate(session)) ? [] : await runMigrator(session);
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK}::bigint)`.execute(session);
    }
  });
}

export async function migrateDatabase(db: Db): Promise<MigrationOutcome> {
  const applied = (await isUpToDate(db)) ? [] : await migrateLocked(db);
  return { applied, distributed: await distributeSchema(db) };
}

export async function migrateToLatest(db: Db): Promise<string[]> {
  return (await migrateDatabase(db)).applied;
}

/** Migrates an opened database: what it got from the prepared image (a fresh DATA_DIR) and what ran now. */
export async function migrateOpened(handle: DatabaseHandle): Promise<MigrationOutcome> {
  const outcome = await migrateDatabase(handle.db);
  return { ...outcome, applied: [...(handle.fromImage ?? []), ...outcome.applied] };
}
