// Queries of role memberships and of the rows their wire shape is made from.
import type { Db } from '../../db/database.ts';
import type { Insertable } from 'kysely';
import type { MembershipRow, RoleMembershipRow, RoleMembershipsTable, UserRow } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';

export async function listRoleMembershipRows(
  db: Db,
  organizationId: string,
  roleId: string,
  page: PageRequest,
): Promise<{ count: number; rows: RoleMembershipRow[] }> {
  const base = db
    .selectFrom('role_memberships')
    .where('organization_id', '=', organizationId)
    .where('role_id', '=', roleId);
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('joined_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count: Number(count), rows };
}

/** Every membership of the given roles, in joined order: the `members` of each role. */
export function listMembershipsOfRoles(
  db: Db,
  organizationId: string,
  roleIds: string[],
): Promise<RoleMembershipRow[]> {
  if (roleIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('role_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('role_id', 'in', roleIds)
    .orderBy('joined_at')
    .orderBy('id')
    .execute();
}

export function findOrganizationMembershipsByIds(
  db: Db,
  organizationId: string,
  ids: string[],
): Promise<MembershipRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('organization_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
}

/** The active user with this uuid and their membership of the organization, if both exist. */
export async function findActiveMemberByUserUuid(
  db: Db,
  organizationId: string,
  userUuid: string,
): Promise<{ user: UserRow; membership: MembershipRow } | undefined> {
  const user = await db
    .selectFrom('users')
    .selectAll()
    .where('uuid', '=', userUuid)
    .where('is_active', '=', true)
    .executeTakeFirst();
  if (!user) return undefined;
  const membership = await db
    .selectFrom('organization_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  return membership ? { user, membership } : undefined;
}

export function findRoleMembershipOfUser(
  db: Db,
  organizationId: string,
  roleId: string,
  userId: number,
): Promise<RoleMembershipRow | undefined> {
  return db
    .selectFrom('role_memberships')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('role_id', '=', roleId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function insertRoleMembership(db: Db, row: Insertable<RoleMembershipsTable>): Promise<RoleMembershipRow> {
  return db.insertInto('role_memberships').values(row).returningAll().executeTakeFirstOrThrow();
}

export function deleteRoleMembershipRow(
  db: Db,
  organizationId: string,
  roleId: string,
  id: string,
): Promise<RoleMembershipRow | undefined> {
  return db
    .deleteFrom('role_memberships')
    .where('organization_id', '=', organizationId)
    .where('role_id', '=', roleId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}
