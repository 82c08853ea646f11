// Organizations and their memberships: creation, listing, levels.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import type { MembershipRow, OrganizationRow } from '../../db/schema.ts';
import { validationError } from '../../errors.ts';
import { OWNER_LEVEL } from '../access/access.service.ts';

export async function addMembership(db: Db, organizationId: string, userId: number, level: number, now: Date): Promise<MembershipRow> {
  return db
    .insertInto('organization_memberships')
    .values({ organization_id: organizationId, id: crypto.randomUUID(), user_id: userId, level, joined_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Creates an organization with the user as its owner. */
export async function createOrganization(db: Db, input: { name: string; ownerId: number }, now: Date): Promise<OrganizationRow> {
  const name = input.name.trim();
  if (!name) throw validationError('This field may not be blank.', 'name', 'blank');
  return inTransaction(db, async (trx) => {
    const organization = await trx
      .insertInto('organizations')
      .values({ id: crypto.randomUUID(), name, created_at: now, updated_at: now })
      .returningAll()
      .executeTakeFirstOrThrow();
    await addMembership(trx, organization.id, input.ownerId, OWNER_LEVEL, now);
    return organization;
  });
}
