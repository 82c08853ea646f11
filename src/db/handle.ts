// The database handle's types, below database.ts (which opens one) and migrate.ts and citus.ts
// (which run on one), so neither has to import the other for a type.
import type { Kysely } from 'kysely';
import type { DatabaseChanges } from './changes.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;

export interface DatabaseHandle {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Changes to the rows access checks read, for the caches that keep them (LISTEN starts on the first subscriber). */
  readonly changes: DatabaseChanges;
  /** The migrations a fresh embedded database got from the prepared image as this open created it. */
  readonly fromImage?: readonly string[];
  close(): Promise<void>;
}
