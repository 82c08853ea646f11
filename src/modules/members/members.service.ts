// Organization members: adding people (creating their user when new), changing levels, removing.
// Level rules: only an owner touches an owner or makes someone owner; nobody changes their own
// level; an organization always keeps at least one owner.
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import type { MembershipRow } from '../../db/schema.ts';
import { isUniqueViolation, notFound, permissionDenied, validationError } from '../../errors.ts';
import { OWNER_LEVEL, isUuid } from '../access/access.service.ts';
import { findMembership } from '../organizations/organizations.repository.ts';
import { addMembership } from '../organizations/organizations.service.ts';
import { findOrCreateUser } from '../users/users.repository.ts';
import { countOwners, deleteMember, findMemberByUserUuid, updateMemberLevel, type Member } from './members.repository.ts';

export interface NewMember {
  organizationId: string;
  email: string;
  firstName?: string;
  lastName?: string;
  level?: number;
}

const alreadyMember = () => validationError('This user is already a member of the organization.', 'email', 'unique');
const insufficient = () => permissionDenied('Your organization access level is insufficient.');

/** Creates the user when the e-mail is new (names apply only then) and makes them a member. */
export async function addMember(db: Db, input: NewMember, now: Date): Promise<Member> {
  try {
    return await inTransaction(db, async (trx) => {
      const { user } = await findOrCreateUser(trx, { email: input.email.trim(), first_name: input.firstName, last_name: input.lastName }, now);
      if (await findMembership(trx, input.organizationId, user.id)) throw alreadyMember();
      const membership = await addMembership(trx, input.organizationId, user.id, input.level ?? 1, now);
      return { membership, user };
    });
  } catch (error) {
    // Two concurrent adds of one person: the unique (organization_id, user_id) decides.
    if (isUniqueViolation(error)) throw alreadyMember();
    throw error;
  }
}

async function findTarget(db: Db, organizationId: string, userUuid: string): Promise<Member> {
  const member = isUuid(userUuid) ? await findMemberByUserUuid(db, organizationId, userUuid.toLowerCase()) : undefined;
  if (!member) throw notFound();
  return member;
}

export async function changeMemberLevel(db: Db, actor: MembershipRow, userUuid: string, level: number, now: Date): Promise<Member> {
  const target = await findTarget(db, actor.organization_id, userUuid);
  if (target.membership.id === actor.id) throw permissionDenied("You can't change your own access level.");
  if ((target.membership.level === OWNER_LEVEL || level === OWNER_LEVEL) && actor.level !== OWNER_LEVEL) throw insufficient();
  return inTransaction(db, async (trx) => {
    if (target.membership.level === OWNER_LEVEL && level !== OWNER_LEVEL) await ensureAnotherOwner(trx, actor.organization_id);
    const membership = await updateMemberLevel(trx, actor.organization_id, target.membership.id, level, now);
    return { membership, user: target.user };
  });
}

/** Removing a member removes their role memberships of the organization too (cascade). */
export async function removeMember(db: Db, actor: MembershipRow, userUuid: string): Promise<void> {
  const target = await findTarget(db, actor.organization_id, userUuid);
  if (target.membership.level === OWNER_LEVEL && actor.level !== OWNER_LEVEL) throw insufficient();
  await inTransaction(db, async (trx) => {
    if (target.membership.level === OWNER_LEVEL) await ensureAnotherOwner(trx, actor.organization_id);
    await deleteMember(trx, actor.organization_id, target.membership.id);
  });
}

/** Before an owner stops being one. Locks the owners so two owners demoting or removing each other at once cannot both succeed. */
async function ensureAnotherOwner(trx: Db, organizationId: string) {
  await trx
    .selectFrom('organization_memberships')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('level', '=', OWNER_LEVEL)
    .forUpdate()
    .execute();
  if ((await countOwners(trx, organizationId)) <= 1) {
    throw validationError('An organization must keep at least one owner.', 'user_uuid');
  }
}
