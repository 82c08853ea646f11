// Members of a role: list, add, remove. The role is always looked up within the organization of
// the path, so a role of another organization is 404 on every route (contract §11).
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { RoleRow, UserRow } from '../../db/schema.ts';
import { isUniqueViolation, notFound, validationError } from '../../errors.ts';
import { loadRoleMemberships } from './role.serializer.ts';
import {
  deleteRoleMembershipRow,
  findActiveMemberByUserUuid,
  findRoleMembershipOfUser,
  findUsersByIds,
  insertRoleMembership,
  listRoleMembershipRows,
} from './role-memberships.repository.ts';
import type { PageRequest } from './roles.repository.ts';
import type { RoleMembershipWire } from './roles.schemas.ts';
import { recordRoleActivity, requireRole, ROLE_SCOPE, type RoleActor } from './roles.service.ts';

const alreadyMember = () => validationError('User is already part of the role.');

export async function listRoleMembershipsPage(
  db: Db,
  organizationId: string,
  roleId: string,
  page: PageRequest,
): Promise<{ count: number; results: RoleMembershipWire[] }> {
  await requireRole(db, organizationId, roleId);
  const { count, rows } = await listRoleMembershipRows(db, organizationId, roleId, page);
  return { count, results: await loadRoleMemberships(db, organizationId, rows) };
}

/** A member added to or removed from a role, as an activity entry of the role. */
function recordMemberActivity(db: Db, actor: RoleActor, role: RoleRow, user: UserRow, added: boolean, now: Date) {
  const who = { user_uuid: user.uuid, email: user.email };
  const change = { type: ROLE_SCOPE, action: added ? 'created' : 'deleted', field: 'members', before: added ? null : who, after: added ? who : null };
  return recordRoleActivity(db, actor, role, added ? 'member_added' : 'member_removed', [change], now);
}

export async function addRoleMember(db: Db, actor: RoleActor, roleId: string, userUuid: string, now: Date): Promise<RoleMembershipWire> {
  try {
    return await db.transaction().execute(async (trx) => {
      const role = await requireRole(trx, actor.organizationId, roleId);
      const member = await findActiveMemberByUserUuid(trx, actor.organizationId, userUuid.toLowerCase());
      if (!member) throw validationError('User does not exist.');
      if (await findRoleMembershipOfUser(trx, actor.organizationId, role.id, member.user.id)) throw alreadyMember();
      const row = await insertRoleMembership(trx, {
        organizationId: actor.organizationId,
        id: crypto.randomUUID(),
        roleId: role.id,
        organizationMemberId: member.membership.id,
        userId: member.user.id,
        now,
      });
      await recordMemberActivity(trx, actor, role, member.user, true, now);
      const [wire] = await loadRoleMemberships(trx, actor.organizationId, [row]);
      return wire;
    });
  } catch (error) {
    // Two requests adding the same user at once: the unique (role, user) index lets one through.
    if (isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

export function removeRoleMember(db: Db, actor: RoleActor, roleId: string, id: string, now: Date): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const role = await requireRole(trx, actor.organizationId, roleId);
    const row = await deleteRoleMembershipRow(trx, actor.organizationId, role.id, id);
    if (!row) throw notFound();
    const [user] = await findUsersByIds(trx, [row.user_id]);
    if (user) await recordMemberActivity(trx, actor, role, user, false, now);
  });
}
