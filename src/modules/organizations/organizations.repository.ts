// Organizations and their memberships.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { MembershipRow, OrganizationRow } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';

export function insertOrganization(db: Db, input: { name: string }, now: Date): Promise<OrganizationRow> {
  return db
    .insertInto('organizations')
    .values({ id: crypto.randomUUID(), name: input.name, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function insertMembership(
  db: Db,
  organizationId: string,
  userId: number,
  level: number,
  now: Date,
): Promise<MembershipRow> {
  return db
    .insertInto('organization_memberships')
    .values({
      organization_id: organizationId,
      id: crypto.randomUUID(),
      user_id: userId,
      level,
      joined_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findOrganization(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findMembership(db: Db, organizationId: string, userId: number): Promise<MembershipRow | undefined> {
  return db
    .selectFrom('organization_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export interface OrganizationWithLevel extends OrganizationRow {
  level: number;
}

/** The organizations the user belongs to, optionally limited to some ids, in joined order. */
export async function listOrganizationsOfUser(
  db: Db,
  userId: number,
  page: PageRequest,
  onlyIds: string[] | null,
): Promise<{ count: number; rows: OrganizationWithLevel[] }> {
  let base = db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', '=', userId);
  if (onlyIds) base = base.where('o.id', 'in', onlyIds.length > 0 ? onlyIds : ['00000000-0000-0000-0000-000000000000']);
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base
      .selectAll('o')
      .select('m.level')
      .orderBy('m.joined_at')
      .orderBy('o.id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count, rows };
}
