// Organizations: the caller's list, and creation with the caller as owner.
import { inTransaction } from '../../db/in-transaction.ts';
import type { OrganizationRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { validationError } from '../../errors.ts';
import type { PageRequest } from '../../wire/page.ts';
import { iso } from '../../wire/serializers.ts';
import { OWNER_LEVEL, type Actor } from '../access/access.service.ts';
import { insertMembership, insertOrganization, listOrganizationsOfUser } from './organizations.repository.ts';
import type { OrganizationWire } from './organizations.schemas.ts';

export function serializeOrganization(organization: OrganizationRow, level: number): OrganizationWire {
  return {
    id: organization.id,
    name: organization.name,
    created_at: iso(organization.created_at),
    updated_at: iso(organization.updated_at),
    membership_level: level,
  };
}

/** The organizations the actor belongs to (those its key may reach), in joined order. */
export async function listOrganizationsPage(
  deps: Deps,
  actor: Actor,
  input: { page: PageRequest },
): Promise<{ count: number; results: OrganizationWire[] }> {
  const { count, rows } = await listOrganizationsOfUser(
    deps.db,
    actor.user.id,
    input.page,
    actor.key.scoped_organizations,
  );
  return { count, results: rows.map((row) => serializeOrganization(row, row.level)) };
}

/** Creates an organization with the user as its owner. */
export async function createOrganization(
  deps: Deps,
  input: { name: string; ownerId: number },
): Promise<OrganizationWire> {
  const name = input.name.trim();
  if (!name) throw validationError('This field may not be blank.', 'name', 'blank');
  const now = deps.clock.now();
  return inTransaction(deps.db, async (trx) => {
    const organization = await insertOrganization(trx, { name }, now);
    await insertMembership(trx, organization.id, input.ownerId, OWNER_LEVEL, now);
    return serializeOrganization(organization, OWNER_LEVEL);
  });
}
