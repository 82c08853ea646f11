// Roles of an organization: create, read, change, delete — each change logged in the activity log
// in the same transaction.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { RoleRow } from '../../db/schema.ts';
import { isUniqueViolation, notFound, validationError } from '../../errors.ts';
import { recordActivity, type ActivityChange } from '../activity/activity.repository.ts';
import { loadRole, loadRoles } from './role.serializer.ts';
import { deleteRoleRow, findRole, findRoleNamed, insertRole, listRoles, updateRoleRow, type PageRequest } from './roles.repository.ts';
import { CAN_ALWAYS_EDIT, type CreateRoleInput, type RoleWire, type UpdateRoleInput } from './roles.schemas.ts';

export const ROLE_SCOPE = 'Role';

/** One activity entry about a role, written in the transaction of the change. */
export function recordRoleActivity(
  db: Db,
  actor: RoleActor,
  role: { id: string; name: string },
  activity: string,
  changes: ActivityChange[] | null,
  now: Date,
): Promise<void> {
  const detail = { changes, name: role.name };
  return recordActivity(db, { organizationId: actor.organizationId, teamId: null, scope: ROLE_SCOPE, itemId: role.id, activity, userId: actor.userId, detail }, now);
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

export interface RoleActor {
  organizationId: string;
  userId: number;
}

export async function listRolesPage(db: Db, organizationId: string, page: PageRequest): Promise<{ count: number; results: RoleWire[] }> {
  const { count, rows } = await listRoles(db, organizationId, page);
  return { count, results: await loadRoles(db, organizationId, rows) };
}

export async function requireRole(db: Db, organizationId: string, id: string): Promise<RoleRow> {
  const role = await findRole(db, organizationId, id);
  if (!role) throw notFound();
  return role;
}

export async function getRole(db: Db, organizationId: string, id: string): Promise<RoleWire> {
  return loadRole(db, organizationId, await requireRole(db, organizationId, id));
}

export function createRole(db: Db, actor: RoleActor, input: CreateRoleInput, now: Date): Promise<RoleWire> {
  return guardUniqueName(() =>
    db.transaction().execute(async (trx) => {
      if (await findRoleNamed(trx, actor.organizationId, input.name, null)) throw duplicateName();
      const role = await insertRole(trx, {
        organizationId: actor.organizationId,
        id: crypto.randomUUID(),
        name: input.name,
        featureFlagsAccessLevel: input.feature_flags_access_level ?? CAN_ALWAYS_EDIT,
        createdById: actor.userId,
        now,
      });
      await recordRoleActivity(trx, actor, role, 'created', null, now);
      return loadRole(trx, actor.organizationId, role);
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
    changes.push({ type: ROLE_SCOPE, action: 'changed', field: 'feature_flags_access_level', before: before.feature_flags_access_level, after: level });
  }
  return changes;
}

/** PATCH and PUT alike: only the given fields change; an unchanged role writes nothing. */
export function updateRole(db: Db, actor: RoleActor, id: string, input: UpdateRoleInput, now: Date): Promise<RoleWire> {
  return guardUniqueName(() =>
    db.transaction().execute(async (trx) => {
      const before = await requireRole(trx, actor.organizationId, id);
      if (input.name !== undefined && (await findRoleNamed(trx, actor.organizationId, input.name, id))) throw duplicateName();
      const changes = changesOf(before, input);
      if (changes.length === 0) return loadRole(trx, actor.organizationId, before);
      const role = await updateRoleRow(trx, actor.organizationId, id, {
        name: input.name,
        feature_flags_access_level: input.feature_flags_access_level,
      });
      // Deleted by a concurrent request between the read and the write.
      if (!role) throw notFound();
      await recordRoleActivity(trx, actor, role, 'updated', changes, now);
      return loadRole(trx, actor.organizationId, role);
    }),
  );
}

export function deleteRole(db: Db, actor: RoleActor, id: string, now: Date): Promise<void> {
  return db.transaction().execute(async (trx) => {
    const role = await deleteRoleRow(trx, actor.organizationId, id);
    if (!role) throw notFound();
    await recordRoleActivity(trx, actor, role, 'deleted', null, now);
  });
}
