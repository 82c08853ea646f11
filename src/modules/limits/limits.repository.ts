// The statements of the shared limits (migration 0012): each touches one subject's rows, so on Citus
// one shard, but the sweep of expired rows, which reads every shard.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

/**
 * Adds `size` hits to a window unless it is already at `max`; answers the window's hits after the
 * claim, or null when it was full (nothing added). The hits before are `hits - size`.
 */
export async function claimHits(
  db: Db,
  claim: { subject: string; budget: string; windowStart: Date; expiresAt: Date; size: number; max: number },
): Promise<number | null> {
  const row = await db
    .insertInto('limit_windows')
    .values({
      subject: claim.subject,
      budget: claim.budget,
      window_start: claim.windowStart,
      hits: claim.size,
      expires_at: claim.expiresAt,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['subject', 'budget', 'window_start'])
        .doUpdateSet({ hits: sql<number>`limit_windows.hits + excluded.hits` })
        .where('limit_windows.hits', '<', claim.max),
    )
    .returning('hits')
    .executeTakeFirst();
  return row ? row.hits : null;
}

/** Takes slot `slot` of a subject for `holder` when it is free or its lease has lapsed. */
export async function takeLease(
  db: Db,
  lease: { subject: string; slot: number; holder: string; ttlMs: number },
): Promise<boolean> {
  // The database's clock for every server; the conflict branch reads it from the proposed row
  // (`excluded`), as Citus evaluates no clock function of its own in an upsert's update.
  const row = await db
    .insertInto('heavy_slot_leases')
    .values({
      subject: lease.subject,
      slot: lease.slot,
      holder: lease.holder,
      taken_at: sql<Date>`now()`,
      expires_at: sql<Date>`now() + make_interval(secs => ${lease.ttlMs / 1000})`,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['subject', 'slot'])
        .doUpdateSet({
          holder: (eb) => eb.ref('excluded.holder'),
          taken_at: (eb) => eb.ref('excluded.taken_at'),
          expires_at: (eb) => eb.ref('excluded.expires_at'),
        })
        .whereRef('heavy_slot_leases.expires_at', '<', 'excluded.taken_at'),
    )
    .returning('slot')
    .executeTakeFirst();
  return row !== undefined;
}

export async function releaseLease(db: Db, lease: { subject: string; slot: number; holder: string }): Promise<void> {
  await db
    .deleteFrom('heavy_slot_leases')
    .where('subject', '=', lease.subject)
    .where('slot', '=', lease.slot)
    .where('holder', '=', lease.holder)
    .execute();
}

/** Extends a lease this process holds (a heavy request may outlast one lease). */
export async function renewLease(
  db: Db,
  lease: { subject: string; slot: number; holder: string },
  ttlMs: number,
): Promise<void> {
  await db
    .updateTable('heavy_slot_leases')
    .set({ expires_at: sql<Date>`now() + make_interval(secs => ${ttlMs / 1000})` })
    .where('subject', '=', lease.subject)
    .where('slot', '=', lease.slot)
    .where('holder', '=', lease.holder)
    .execute();
}

/** Deletes windows and leases past their expiry: what keeps both tables as small as the traffic of the last hour. */
export async function deleteExpired(db: Db): Promise<{ windows: number; leases: number }> {
  const windows = await db
    .deleteFrom('limit_windows')
    .where('expires_at', '<', sql<Date>`now()`)
    .executeTakeFirst();
  const leases = await db
    .deleteFrom('heavy_slot_leases')
    .where('expires_at', '<', sql<Date>`now()`)
    .executeTakeFirst();
  return { windows: Number(windows.numDeletedRows), leases: Number(leases.numDeletedRows) };
}
