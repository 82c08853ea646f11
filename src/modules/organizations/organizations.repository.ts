import type { Db } from '../../db/database.ts';
import type { MembershipRow, OrganizationRow } from '../../db/schema.ts';

export function findOrganization(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The user's "@current" organization: the first one joined. */
export function findFirstOrganizationOfUser(db: Db, userId: number): Promise<OrganizationRow | undefined> {
  return db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .selectAll('o')
    .where('m.user_id', '=', userId)
    .orderBy('m.joined_at')
    .orderBy('m.id')
    .limit(1)
    .executeTakeFirst();
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
  page: { limit: number; offset: number },
  onlyIds: string[] | null,
): Promise<{ count: number; rows: OrganizationWithLevel[] }> {
  let base = db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .where('m.user_id', '=', userId);
  if (onlyIds) base = base.where('o.id', 'in', onlyIds.length > 0 ? onlyIds : ['00000000-0000-0000-0000-000000000000']);
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base.selectAll('o').select('m.level').orderBy('m.joined_at').orderBy('o.id').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count, rows };
}
