// Every advisory lock key herd takes, in one list: two features that picked the same number would
// wait on each other (the migration lock first collided with the first account's). Keys are per
// database.
export const ADVISORY_LOCKS = {
  /** The deletion batch: one runner per database at a time (pg_try_advisory_lock). */
  deletionBatch: 7_241_006,
  /** Placing the schema on Citus: a second server waits, then finds everything placed. */
  citusPlacement: 7_241_007,
  /** The first account of an empty database: one transaction at a time. */
  firstAccount: 7_241_008,
  /** Migrating, Kysely's own tables included (src/db/migrate.ts). */
  migration: 7_241_031,
} as const;
