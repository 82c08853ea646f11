// Roles of an organization: create, read, change, delete — each change logged in the activity log
// in the same transaction.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { RoleRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { isUniqueViolation, notFound, validationError } from '../../errors.ts';
import type { PageRequest } from '../../wire/page.ts';
import type { Actor } from '../access/access.service.ts';
import { recordActivity, type ActivityChange } from '../activity/activity.repository.ts';
import { loadRole, loadRoles } from './role.serializer.ts';
import { deleteRoleRow, findRole, findRoleNamed, insertRole, listRoles, updateRoleRow } from './roles.repository.ts';
import { CAN_ALWAYS_EDIT, type CreateRoleInput, type RoleWire, type UpdateRoleInput } from './roles.schemas.ts';

export const ROLE_SCOPE = 'Role';

/** One activity entry about a role of the organization, written in the transaction of the change. */
export function recordRoleActivity(
  db: Db,
  actor: Actor,
  role: { organization_id: string; id: string; name: string },
  activity: string,
  changes: ActivityChange[] | null,
  now: Date,
): Promise<void> {
  const detail = { changes, name: role.name };
  const entry = {
    organizationId: role.organization_id,
    teamId: null,
    scope: ROLE_SCOPE,
    itemId: role.id,
    activity,
    userId: actor.user.id,
    detail,
  };
  return recordActivity(db, entry, now);
}

const duplicateName = () => validationError('There is already a role with this name.', 'name', 'unique');

/** The pre-check gives the answer in the common case; the unique index decides a race of two writers. */
async function guardUniqueName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName();
    throw error;
  }
}

export interface RoleTarget {
  organizationId: string;
  id: string;
}

export async function listRolesPage(
  deps: Deps,
  input: { organizationId: string; page: PageRequest },
): Promise<{ count: number; results: RoleWire[] }> {
  const { count, rows } = await listRoles(deps.db, input.organizationId, input.page);
  return { count, results: await loadRoles(deps.db, input.organizationId, rows) };
}

export async function requireRole(db: Db, organizationId: string, id: string): Promise<RoleRow> {
  const role = await findRole(db, organizationId, id);
  if (!role) throw notFound();
  return role;
}

export async function getRole(deps: Deps, input: RoleTarget): Promise<RoleWire> {
  return loadRole(deps.db, input.organizationId, await requireRole(deps.db, input.organizationId, input.id));
}

export function createRole(
  deps: Deps,
  actor: Actor,
  input: CreateRoleInput & { organizationId: string },
): Promise<RoleWire> {
  const { organizationId } = input;
  const now = deps.clock.now();
  return guardUniqueName(() =>
    deps.db.transaction().execute(async (trx) => {
      if (await findRoleNamed(trx, organizationId, input.name, null)) throw duplicateName();
      const role = await insertRole(trx, {
        organization_id: organizationId,
        id: crypto.randomUUID(),
        name: input.name,
        feature_flags_access_level: input.feature_flags_access_level ?? CAN_ALWAYS_EDIT,
        created_at: now,
        created_by_id: actor.user.id,
      });
      await recordRoleActivity(trx, actor, role, 'created', null, now);
      return loadRole(trx, organizationId, role);
    }),
  );
}

function changesOf(before: RoleRow, input: UpdateRoleInput): ActivityChange[] {
  const changes: ActivityChange[] = [];
  if (input.name !== undefined && input.name !== before.name) {
    changes.push({ type: ROLE_SCOPE, action: 'changed', field: 'name', before: before.name, after: input.name });
  }
  const level = input.feature_flags_access_level;
  if (level !== undefined && level !== before.feature_flags_access_level) {
    changes.push({
      type: ROLE_SCOPE,
      action: 'changed',
      field: 'feature_flags_access_level',
      before: before.feature_flags_access_level,
      after: level,
    });
  }
  return changes;
}

/** PATCH and PUT alike: only the given fields change; an unchanged role writes nothing. */
export function updateRole(deps: Deps, actor: Actor, input: UpdateRoleInput & RoleTarget): Promise<RoleWire> {
  const { organizationId, id } = input;
  const now = deps.clock.now();
  return guardUniqueName(() =>
    deps.db.transaction().execute(async (trx) => {
      const before = await requireRole(trx, organizationId, id);
      if (input.name !== undefined && (await findRoleNamed(trx, organizationId, input.name, id))) throw duplicateName();
      const changes = changesOf(before, input);
      if (changes.length === 0) return loadRole(trx, organizationId, before);
      const role = await updateRoleRow(trx, organizationId, id, {
        name: input.name,
        feature_flags_access_level: input.feature_flags_access_level,
      });
      // Deleted by a concurrent request between the read and the write.
      if (!role) throw notFound();
      await recordRoleActivity(trx, actor, role, 'updated', changes, now);
      return loadRole(trx, organizationId, role);
    }),
  );
}

export function deleteRole(deps: Deps, actor: Actor, input: RoleTarget): Promise<void> {
  return deps.db.transaction().execute(async (trx) => {
    const role = await deleteRoleRow(trx, input.organizationId, input.id);
    if (!role) throw notFound();
    await recordRoleActivity(trx, actor, role, 'deleted', null, deps.clock.now());
  });
}
