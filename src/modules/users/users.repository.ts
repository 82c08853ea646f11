// Users: global rows, found by id, uuid or e-mail (ignoring case).
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { UserRow } from '../../db/schema.ts';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';

export function findUsersByIds(db: Db, ids: number[]): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('users').selectAll().where('id', 'in', ids).execute();
}

export function findUserByUuid(db: Db, uuid: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('uuid', '=', uuid).executeTakeFirst();
}

export function findUserByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
}

export interface NewUser {
  email: string;
  first_name?: string;
  last_name?: string;
}

/** Creates the user, or returns the existing one with that e-mail (ignoring case). */
export async function findOrCreateUser(
  db: Db,
  input: NewUser,
  now: Date,
): Promise<{ user: UserRow; created: boolean }> {
  const inserted = await db
    .insertInto('users')
    .values({
      uuid: crypto.randomUUID(),
      distinct_id: crypto.randomUUID(),
      email: input.email,
      first_name: input.first_name ?? '',
      last_name: input.last_name ?? '',
      is_email_verified: false,
      hedgehog_config: null,
      role_at_organization: null,
      last_login: null,
      created_at: now,
    })
    .onConflict((oc) => oc.expression(sql`lower(email)`).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { user: inserted, created: true };
  const existing = await findUserByEmail(db, input.email);
  if (!existing) throw new Error('user vanished between insert and select');
  return { user: existing, created: false };
}

/** Locks the user's row until the transaction ends. */
export async function lockUser(db: Db, userId: number): Promise<void> {
  await db.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}

export async function anyUserExists(db: Db): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/** One constant key: the first account of a database is created by one transaction at a time. */
export const FIRST_ACCOUNT_LOCK_KEY = ADVISORY_LOCKS.firstAccount;

/** Waits for, then holds until the transaction ends, the lock under which the first account is created. */
export async function lockFirstAccount(trx: Db): Promise<void> {
  await sql`select pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK_KEY}::bigint)`.execute(trx);
}
