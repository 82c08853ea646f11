// Queries of roles and of the feature flags granted to them. Every query is bounded by the
// organization, so a role id of another organization finds nothing.
import type { Db } from '../../db/database.ts';
import type { Insertable } from 'kysely';
import type { RoleRow, RolesTable } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';

export function findRole(db: Db, organizationId: string, id: string): Promise<RoleRow | undefined> {
  return db
    .selectFrom('roles')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Another role of the organization with this name, compared ignoring case. */
export function findRoleNamed(
  db: Db,
  organizationId: string,
  name: string,
  exceptId: string | null,
): Promise<RoleRow | undefined> {
  let query = db
    .selectFrom('roles')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', eb.fn('lower', [eb.val(name)])));
  if (exceptId) query = query.where('id', '!=', exceptId);
  return query.executeTakeFirst();
}

export async function listRoles(
  db: Db,
  organizationId: string,
  page: PageRequest,
): Promise<{ count: number; rows: RoleRow[] }> {
  const base = db.selectFrom('roles').where('organization_id', '=', organizationId);
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count: Number(count), rows };
}

export function insertRole(db: Db, row: Insertable<RolesTable>): Promise<RoleRow> {
  return db.insertInto('roles').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateRoleRow(
  db: Db,
  organizationId: string,
  id: string,
  changes: { name?: string; feature_flags_access_level?: number },
): Promise<RoleRow | undefined> {
  return db
    .updateTable('roles')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes the role; its memberships and flag grants go with it (foreign keys cascade). */
export async function deleteRoleRow(db: Db, organizationId: string, id: string): Promise<RoleRow | undefined> {
  return db
    .deleteFrom('roles')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export interface AssociatedFlag {
  id: number;
  key: string;
}

/** The feature flags granted to each of the roles, by role id, in flag id order. */
export async function listAssociatedFlags(
  db: Db,
  organizationId: string,
  roleIds: string[],
): Promise<Map<string, AssociatedFlag[]>> {
  const byRole = new Map<string, AssociatedFlag[]>(roleIds.map((id) => [id, []]));
  if (roleIds.length === 0) return byRole;
  const rows = await db
    .selectFrom('feature_flag_role_access as a')
    .innerJoin('feature_flags as f', (join) =>
      join.onRef('f.team_id', '=', 'a.team_id').onRef('f.id', '=', 'a.feature_flag_id'),
    )
    .select(['a.role_id', 'f.id', 'f.key'])
    .where('a.organization_id', '=', organizationId)
    .where('a.role_id', 'in', roleIds)
    .orderBy('f.id')
    .execute();
  for (const row of rows) byRole.get(row.role_id)?.push({ id: row.id, key: row.key });
  return byRole;
}
