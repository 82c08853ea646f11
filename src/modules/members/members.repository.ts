// Members of an organization: its memberships with their users.
import type { Db } from '../../db/database.ts';
import type { MembershipRow, UserRow } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';
import { findMembership } from '../organizations/organizations.repository.ts';
import { findUserByUuid, findUsersByIds } from '../users/users.repository.ts';

export interface Member {
  membership: MembershipRow;
  user: UserRow;
}

/** The organization's members in joined order (then id, a stable tiebreak for limit/offset). */
export async function listMembers(
  db: Db,
  organizationId: string,
  page: PageRequest,
): Promise<{ count: number; members: Member[] }> {
  const [{ count }, memberships] = await Promise.all([
    db
      .selectFrom('organization_memberships')
      .where('organization_id', '=', organizationId)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('organization_memberships')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('joined_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  const userIds = memberships.map((m) => m.user_id);
  const users = await findUsersByIds(db, userIds);
  const byId = new Map(users.map((user) => [user.id, user]));
  return { count, members: memberships.map((membership) => ({ membership, user: byId.get(membership.user_id)! })) };
}

export async function findMemberByUserUuid(
  db: Db,
  organizationId: string,
  userUuid: string,
): Promise<Member | undefined> {
  const user = await findUserByUuid(db, userUuid);
  const membership = user && (await findMembership(db, organizationId, user.id));
  return user && membership ? { membership, user } : undefined;
}

export function updateMemberLevel(
  db: Db,
  organizationId: string,
  membershipId: string,
  level: number,
  now: Date,
): Promise<MembershipRow> {
  return db
    .updateTable('organization_memberships')
    .set({ level, updated_at: now })
    .where('organization_id', '=', organizationId)
    .where('id', '=', membershipId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Role memberships of that organization go with it (foreign key cascade). */
export async function deleteMember(db: Db, organizationId: string, membershipId: string): Promise<void> {
  await db
    .deleteFrom('organization_memberships')
    .where('organization_id', '=', organizationId)
    .where('id', '=', membershipId)
    .execute();
}

/** Locks the organization's owner memberships until the transaction ends. */
export async function lockOwners(db: Db, organizationId: string): Promise<void> {
  await db
    .selectFrom('organization_memberships')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('level', '=', 15)
    .forUpdate()
    .execute();
}

export async function countOwners(db: Db, organizationId: string): Promise<number> {
  const { count } = await db
    .selectFrom('organization_memberships')
    .where('organization_id', '=', organizationId)
    .where('level', '=', 15)
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return count;
}
