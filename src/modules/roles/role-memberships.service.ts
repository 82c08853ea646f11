// Members of a role: list, add, remove. The role is always looked up within the organization of
// the path, so a role of another organization is 404 on every route.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { RoleRow, UserRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { isUniqueViolation, notFound, validationError } from '../../errors.ts';
import type { PageRequest } from '../../wire/page.ts';
import type { Actor } from '../access/access.service.ts';
import { findUsersByIds } from '../users/users.repository.ts';
import { loadRoleMemberships } from './role.serializer.ts';
import {
  deleteRoleMembershipRow,
  findActiveMemberByUserUuid,
  findRoleMembershipOfUser,
  insertRoleMembership,
  listRoleMembershipRows,
} from './role-memberships.repository.ts';
import type { RoleMembershipWire } from './roles.schemas.ts';
import { recordRoleActivity, requireRole, ROLE_SCOPE } from './roles.service.ts';

const alreadyMember = () => validationError('User is already part of the role.');

export async function listRoleMembershipsPage(
  deps: Deps,
  input: { organizationId: string; roleId: string; page: PageRequest },
): Promise<{ count: number; results: RoleMembershipWire[] }> {
  const { organizationId, roleId } = input;
  await requireRole(deps.db, organizationId, roleId);
  const { count, rows } = await listRoleMembershipRows(deps.db, organizationId, roleId, input.page);
  return { count, results: await loadRoleMemberships(deps.db, organizationId, rows) };
}

/** A member added to or removed from a role, as an activity entry of the role. */
function recordMemberActivity(db: Db, actor: Actor, role: RoleRow, user: UserRow, added: boolean, now: Date) {
  const who = { user_uuid: user.uuid, email: user.email };
  const change = {
    type: ROLE_SCOPE,
    action: added ? 'created' : 'deleted',
    field: 'members',
    before: added ? null : who,
    after: added ? who : null,
  };
  return recordRoleActivity(db, actor, role, added ? 'member_added' : 'member_removed', [change], now);
}

export async function addRoleMember(
  deps: Deps,
  actor: Actor,
  input: { organizationId: string; roleId: string; userUuid: string },
): Promise<RoleMembershipWire> {
  const { organizationId } = input;
  const now = deps.clock.now();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const role = await requireRole(trx, organizationId, input.roleId);
      const member = await findActiveMemberByUserUuid(trx, organizationId, input.userUuid.toLowerCase());
      if (!member) throw validationError('User does not exist.');
      if (await findRoleMembershipOfUser(trx, organizationId, role.id, member.user.id)) throw alreadyMember();
      const row = await insertRoleMembership(trx, {
        organization_id: organizationId,
        id: crypto.randomUUID(),
        role_id: role.id,
        organization_member_id: member.membership.id,
        user_id: member.user.id,
        joined_at: now,
        updated_at: now,
      });
      await recordMemberActivity(trx, actor, role, member.user, true, now);
      const [wire] = await loadRoleMemberships(trx, organizationId, [row]);
      return wire;
    });
  } catch (error) {
    // Two requests adding the same user at once: the unique (role, user) index lets one through.
    if (isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

export function removeRoleMember(
  deps: Deps,
  actor: Actor,
  input: { organizationId: string; roleId: string; id: string },
): Promise<void> {
  return deps.db.transaction().execute(async (trx) => {
    const role = await requireRole(trx, input.organizationId, input.roleId);
    const row = await deleteRoleMembershipRow(trx, input.organizationId, role.id, input.id);
    if (!row) throw notFound();
    const [user] = await findUsersByIds(trx, [row.user_id]);
    if (user) await recordMemberActivity(trx, actor, role, user, false, deps.clock.now());
  });
}
