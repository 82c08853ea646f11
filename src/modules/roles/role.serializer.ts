// Row → wire for roles and memberships, loading what they nest (members, users, flags) in batches.
import type { Db } from '../../db/database.ts';
import type { RoleMembershipRow, RoleRow } from '../../db/schema.ts';
import { iso, serializeMember, serializeUser } from '../../wire/serializers.ts';
import { loadCreators } from '../users/creators.ts';
import { findUsersByIds } from '../users/users.repository.ts';
import { findOrganizationMembershipsByIds, listMembershipsOfRoles } from './role-memberships.repository.ts';
import { listAssociatedFlags } from './roles.repository.ts';
import type { RoleMembershipWire, RoleWire } from './roles.schemas.ts';

/** The Role membership objects of the rows, in the rows' order. */
export async function loadRoleMemberships(
  db: Db,
  organizationId: string,
  rows: RoleMembershipRow[],
): Promise<RoleMembershipWire[]> {
  const [members, users] = await Promise.all([
    findOrganizationMembershipsByIds(db, organizationId, [...new Set(rows.map((row) => row.organization_member_id))]),
    findUsersByIds(db, [...new Set(rows.map((row) => row.user_id))]),
  ]);
  const memberById = new Map(members.map((member) => [member.id, member]));
  const userById = new Map(users.map((user) => [user.id, user]));
  return rows.flatMap((row) => {
    const member = memberById.get(row.organization_member_id);
    const user = userById.get(row.user_id);
    // Both are held by foreign keys that cascade; a row missing them was deleted meanwhile.
    if (!member || !user) return [];
    return [
      {
        id: row.id,
        role_id: row.role_id,
        organization_member: serializeMember(member, user),
        user: serializeUser(user),
        joined_at: iso(row.joined_at),
        updated_at: iso(row.updated_at),
      },
    ];
  });
}

/** The Role objects of the rows, in the rows' order, with members, creator and granted flags. */
export async function loadRoles(db: Db, organizationId: string, roles: RoleRow[]): Promise<RoleWire[]> {
  const roleIds = roles.map((role) => role.id);
  const [membershipRows, flags, creatorOf] = await Promise.all([
    listMembershipsOfRoles(db, organizationId, roleIds),
    listAssociatedFlags(db, organizationId, roleIds),
    loadCreators(db, roles),
  ]);
  const memberships = await loadRoleMemberships(db, organizationId, membershipRows);
  return roles.map((role) => ({
    id: role.id,
    name: role.name,
    feature_flags_access_level: role.feature_flags_access_level,
    created_at: iso(role.created_at),
    created_by: creatorOf(role),
    members: memberships.filter((membership) => membership.role_id === role.id),
    associated_flags: flags.get(role.id) ?? [],
  }));
}

export async function loadRole(db: Db, organizationId: string, role: RoleRow): Promise<RoleWire> {
  const [wire] = await loadRoles(db, organizationId, [role]);
  return wire;
}
