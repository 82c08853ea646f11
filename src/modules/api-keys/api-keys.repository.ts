// Personal API keys: a user's keys, their limits, and the stored form of a new key.
import type { Db } from '../../db/database.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';
import { generatePersonalApiKey, hashApiKey, maskApiKey, randomBase62 } from '../access/api-key.tokens.ts';

export interface NewApiKey {
  userId: number;
  label: string;
  scopes: string[];
  scopedOrganizations?: string[] | null;
  scopedTeams?: number[] | null;
}

/** Stores only the hash and mask; the raw value is returned to be shown once. */
export async function insertApiKey(db: Db, input: NewApiKey, now: Date): Promise<{ row: ApiKeyRow; value: string }> {
  const value = generatePersonalApiKey();
  const row = await db
    .insertInto('personal_api_keys')
    .values({
      id: randomBase62(16),
      user_id: input.userId,
      label: input.label,
      secure_value: hashApiKey(value),
      mask_value: maskApiKey(value),
      scopes: input.scopes,
      scoped_organizations:
        input.scopedOrganizations && input.scopedOrganizations.length > 0 ? input.scopedOrganizations : null,
      scoped_teams: input.scopedTeams && input.scopedTeams.length > 0 ? input.scopedTeams : null,
      created_at: now,
      last_used_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, value };
}

/** The user's keys, newest first. */
export async function listKeysOfUser(
  db: Db,
  userId: number,
  page: PageRequest,
): Promise<{ count: number; rows: ApiKeyRow[] }> {
  const base = db.selectFrom('personal_api_keys').where('user_id', '=', userId);
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count, rows };
}

export function findKeyOfUser(db: Db, userId: number, id: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('personal_api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteKeyOfUser(db: Db, userId: number, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('personal_api_keys')
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function countKeysOfUser(db: Db, userId: number): Promise<number> {
  const { count } = await db
    .selectFrom('personal_api_keys')
    .where('user_id', '=', userId)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return count;
}

/** The subset of the given organizations the user belongs to. */
export async function organizationsOfUserAmong(db: Db, userId: number, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('organization_memberships')
    .select('organization_id')
    .where('user_id', '=', userId)
    .where('organization_id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.organization_id));
}

/** The subset of the given projects whose organization the user belongs to. */
export async function teamsOfUserAmong(db: Db, userId: number, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('teams as t')
    .innerJoin('organization_memberships as m', 'm.organization_id', 't.organization_id')
    .select('t.id')
    .where('m.user_id', '=', userId)
    .where('t.id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}
