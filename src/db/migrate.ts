// Applies every pending migration. Kysely's migrator takes a row lock first, so two servers that
// start at once on one PostgreSQL run each migration exactly once.
import { Migrator, type MigrationResultSet } from 'kysely';
import type { DatabaseHandle, Db } from './database.ts';
import { migrations } from './migrations/index.ts';

export async function migrateToLatest(db: Db): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results }: MigrationResultSet = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Migrates an opened database: what it got from the prepared image (a fresh DATA_DIR) and what ran now. */
export async function migrateOpened(handle: DatabaseHandle): Promise<string[]> {
  return [...(handle.fromImage ?? []), ...(await migrateToLatest(handle.db))];
}
