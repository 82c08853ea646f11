// The lookups behind every authenticated request, each one round trip: the key with its user, and
// a project (or organization) with its organization and the caller's membership; the "@current"
// ones; and the key's last use.
import { sql, type Expression } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { ApiKeyRow, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';

export async function findKeyWithUser(
  db: Db,
  secureValue: string,
): Promise<{ key: ApiKeyRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('personal_api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .selectAll('u')
    .select([
      'k.id as key_id',
      'k.label as key_label',
      'k.secure_value as key_secure_value',
      'k.mask_value as key_mask_value',
      'k.scopes as key_scopes',
      'k.scoped_organizations as key_scoped_organizations',
      'k.scoped_teams as key_scoped_teams',
      'k.created_at as key_created_at',
      'k.last_used_at as key_last_used_at',
    ])
    .where('k.secure_value', '=', secureValue)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    key_id,
    key_label,
    key_secure_value,
    key_mask_value,
    key_scopes,
    key_scoped_organizations,
    key_scoped_teams,
    key_created_at,
    key_last_used_at,
    ...user
  } = row;
  const key: ApiKeyRow = {
    id: key_id,
    user_id: user.id,
    label: key_label,
    secure_value: key_secure_value,
    mask_value: key_mask_value,
    scopes: key_scopes,
    scoped_organizations: key_scoped_organizations,
    scoped_teams: key_scoped_teams,
    created_at: key_created_at,
    last_used_at: key_last_used_at,
  };
  return { key, user };
}

const organizationColumns = [
  'o.name as org_name',
  'o.created_at as org_created_at',
  'o.updated_at as org_updated_at',
] as const;
const membershipColumns = [
  'm.id as member_id',
  'm.user_id as member_user_id',
  'm.level as member_level',
  'm.joined_at as member_joined_at',
  'm.updated_at as member_updated_at',
] as const;

interface JoinedColumns {
  org_name: string;
  org_created_at: Date;
  org_updated_at: Date;
  member_id: string | null;
  member_user_id: number | null;
  member_level: number | null;
  member_joined_at: Date | null;
  member_updated_at: Date | null;
}

/**
 * Whose membership a lookup joins: a user's, or that of the user whose key has this digest — so the
 * lookup can run beside the key's own instead of after it.
 */
export type MemberRef = { userId: number } | { keyDigest: string };

function memberIdOf(member: MemberRef): number | Expression<number> {
  if ('userId' in member) return member.userId;
  return sql<number>`(select k.user_id from personal_api_keys k where k.secure_value = ${member.keyDigest})`;
}

function splitJoined(
  organizationId: string,
  row: JoinedColumns,
): { organization: OrganizationRow; membership: MembershipRow | null } {
  const organization = {
    id: organizationId,
    name: row.org_name,
    created_at: row.org_created_at,
    updated_at: row.org_updated_at,
  };
  const membership =
    row.member_id === null
      ? null
      : {
          organization_id: organizationId,
          id: row.member_id,
          user_id: row.member_user_id as number,
          level: row.member_level as number,
          joined_at: row.member_joined_at as Date,
          updated_at: row.member_updated_at as Date,
        };
  return { organization, membership };
}

/** The project, its organization, and the user's membership there (null when not a member). */
export async function findProjectForUser(
  db: Db,
  projectId: number,
  member: MemberRef,
): Promise<{ project: TeamRow; organization: OrganizationRow; membership: MembershipRow | null } | undefined> {
  const row = await db
    .selectFrom('teams as t')
    .innerJoin('organizations as o', 'o.id', 't.organization_id')
    .leftJoin('organization_memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 't.organization_id').on('m.user_id', '=', memberIdOf(member)),
    )
    .selectAll('t')
    .select([...organizationColumns, ...membershipColumns])
    .where('t.id', '=', projectId)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    org_name,
    org_created_at,
    org_updated_at,
    member_id,
    member_user_id,
    member_level,
    member_joined_at,
    member_updated_at,
    ...project
  } = row;
  const joined = {
    org_name,
    org_created_at,
    org_updated_at,
    member_id,
    member_user_id,
    member_level,
    member_joined_at,
    member_updated_at,
  };
  return { project, ...splitJoined(project.organization_id, joined) };
}

/** The organization and the user's membership there (null when not a member). */
export async function findOrganizationForUser(
  db: Db,
  organizationId: string,
  member: MemberRef,
): Promise<{ organization: OrganizationRow; membership: MembershipRow | null } | undefined> {
  const row = await db
    .selectFrom('organizations as o')
    .leftJoin('organization_memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 'o.id').on('m.user_id', '=', memberIdOf(member)),
    )
    .select([...organizationColumns, ...membershipColumns])
    .where('o.id', '=', organizationId)
    .executeTakeFirst();
  return row && splitJoined(organizationId, row);
}

/** The user's "@current" organization: the first one joined. */
export function findFirstOrganizationOfUser(db: Db, userId: number): Promise<OrganizationRow | undefined> {
  return db
    .selectFrom('organization_memberships as m')
    .innerJoin('organizations as o', 'o.id', 'm.organization_id')
    .selectAll('o')
    .where('m.user_id', '=', userId)
    .orderBy('m.joined_at')
    .orderBy('m.id')
    .limit(1)
    .executeTakeFirst();
}

/** The "@current" project of an organization: its first-created one. */
export function findFirstTeamOfOrganization(db: Db, organizationId: string): Promise<TeamRow | undefined> {
  return db
    .selectFrom('teams')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}

export async function touchKeyLastUsed(db: Db, keyId: string, now: Date): Promise<void> {
  await db.updateTable('personal_api_keys').set({ last_used_at: now }).where('id', '=', keyId).execute();
}
