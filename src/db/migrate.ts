// Applies every pending migration. Kysely's migrator takes a row lock first, so two servers that
// start at once on one PostgreSQL run each migration exactly once. On Citus the schema is then
// distributed (src/db/citus.ts).
import { Migrator, type MigrationResultSet } from 'kysely';
import { distributeSchema } from './citus.ts';
import type { DatabaseHandle, Db } from './database.ts';
import { migrations } from './migrations/index.ts';

export interface MigrationOutcome {
  applied: string[];
  /** Tables this run distributed on Citus (empty elsewhere, and once all are placed). */
  distributed: string[];
}

export async function migrateDatabase(db: Db): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
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
