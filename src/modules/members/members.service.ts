// Organization members: listing, adding people (creating their user when new), changing levels,
// removing. Level rules: only an owner touches an owner or makes someone owner; nobody changes
// their own level; an organization always keeps at least one owner.
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import type { MembershipRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { isUniqueViolation, notFound, permissionDenied, validationError } from '../../errors.ts';
import { isUuid } from '../../wire/ids.ts';
import type { PageRequest } from '../../wire/page.ts';
import { serializeMember } from '../../wire/serializers.ts';
import { OWNER_LEVEL } from '../access/access.service.ts';
import { findMembership, insertMembership } from '../organizations/organizations.repository.ts';
import { findOrCreateUser } from '../users/users.repository.ts';
import {
  countOwners,
  deleteMember,
  findMemberByUserUuid,
  listMembers,
  lockOwners,
  updateMemberLevel,
  type Member,
} from './members.repository.ts';
import type { OrganizationMemberWire } from './members.schemas.ts';

export interface NewMember {
  organizationId: string;
  email: string;
  firstName?: string;
  lastName?: string;
  level?: number;
  /** The membership of whoever adds, as the access check found it; absent for the CLI, which is trusted. */
  callerMembership?: MembershipRow;
}

/** The member to change or remove, named by the uuid of their user, and the membership of whoever does it. */
export interface MemberTarget {
  callerMembership: MembershipRow;
  userUuid: string;
}

const alreadyMember = () => validationError('This user is already a member of the organization.', 'email', 'unique');
const insufficient = () => permissionDenied('Your organization access level is insufficient.');

const wireOf = (member: Member) => serializeMember(member.membership, member.user);

/** The organization's members in joined order. */
export async function listMembersPage(
  deps: Deps,
  input: { organizationId: string; page: PageRequest },
): Promise<{ count: number; results: OrganizationMemberWire[] }> {
  const { count, members } = await listMembers(deps.db, input.organizationId, input.page);
  return { count, results: members.map(wireOf) };
}

/** Creates the user when the e-mail is new (names apply only then) and makes them a member. */
export async function addMember(deps: Deps, input: NewMember): Promise<OrganizationMemberWire> {
  // An owner's level is given only by an owner, on joining as on a change.
  if (input.level === OWNER_LEVEL && input.callerMembership && input.callerMembership.level !== OWNER_LEVEL)
    throw insufficient();
  const now = deps.clock.now();
  try {
    return await inTransaction(deps.db, async (trx) => {
      const { user } = await findOrCreateUser(
        trx,
        { email: input.email.trim(), first_name: input.firstName, last_name: input.lastName },
        now,
      );
      if (await findMembership(trx, input.organizationId, user.id)) throw alreadyMember();
      const membership = await insertMembership(trx, input.organizationId, user.id, input.level ?? 1, now);
      return wireOf({ membership, user });
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

export async function changeMemberLevel(
  deps: Deps,
  input: MemberTarget & { level: number },
): Promise<OrganizationMemberWire> {
  const { callerMembership: caller, level } = input;
  const target = await findTarget(deps.db, caller.organization_id, input.userUuid);
  if (target.membership.id === caller.id) throw permissionDenied("You can't change your own access level.");
  if ((target.membership.level === OWNER_LEVEL || level === OWNER_LEVEL) && caller.level !== OWNER_LEVEL)
    throw insufficient();
  return inTransaction(deps.db, async (trx) => {
    if (target.membership.level === OWNER_LEVEL && level !== OWNER_LEVEL)
      await ensureAnotherOwner(trx, caller.organization_id);
    const membership = await updateMemberLevel(
      trx,
      caller.organization_id,
      target.membership.id,
      level,
      deps.clock.now(),
    );
    return wireOf({ membership, user: target.user });
  });
}

/** Removing a member removes their role memberships of the organization too (cascade). */
export async function removeMember(deps: Deps, input: MemberTarget): Promise<void> {
  const { callerMembership: caller } = input;
  const target = await findTarget(deps.db, caller.organization_id, input.userUuid);
  if (target.membership.level === OWNER_LEVEL && caller.level !== OWNER_LEVEL) throw insufficient();
  await inTransaction(deps.db, async (trx) => {
    if (target.membership.level === OWNER_LEVEL) await ensureAnotherOwner(trx, caller.organization_id);
    await deleteMember(trx, caller.organization_id, target.membership.id);
  });
}

/** Before an owner stops being one. Locks the owners so two owners demoting or removing each other at once cannot both succeed. */
async function ensureAnotherOwner(trx: Db, organizationId: string) {
  await lockOwners(trx, organizationId);
  if ((await countOwners(trx, organizationId)) <= 1) {
    throw validationError('An organization must keep at least one owner.', 'user_uuid');
  }
}
