// Who is calling and what they may touch. The order of checks follows the platform:
// bad key → 401; unknown organization/project → 404; key restrictions → 403; missing scope → 403;
// not a member → 403; a member writing where admins must → 403.
import type { ApiKeyRow, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { authenticationFailed, notAuthenticated, notFound, permissionDenied } from '../../errors.ts';
import { digestsEqual, hashApiKey } from '../api-keys/api-key.tokens.ts';
import { findFirstOrganizationOfUser, findMembership, findOrganization } from '../organizations/organizations.repository.ts';
import { findFirstTeamOfOrganization, findTeam } from '../projects/projects.repository.ts';
import { findUserById } from '../users/users.repository.ts';
import { firstMissingScope } from './scopes.ts';

export const ADMIN_LEVEL = 8;
export const OWNER_LEVEL = 15;

export interface Actor {
  user: UserRow;
  key: ApiKeyRow;
}

export interface OrganizationAccess {
  organization: OrganizationRow;
  membership: MembershipRow;
}

export interface ProjectAccess extends OrganizationAccess {
  project: TeamRow;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: string) => UUID_PATTERN.test(value);

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** Reads "Authorization: Bearer <key>" (scheme case-insensitive) and finds the key's active user. */
export async function authenticate(deps: Deps, authorization: string | undefined): Promise<Actor> {
  const match = authorization?.match(/^bearer\s+(\S.*)$/i);
  if (!match) throw notAuthenticated();
  const raw = match[1].trim();
  const digest = hashApiKey(raw);
  const key = await deps.db.selectFrom('personal_api_keys').selectAll().where('secure_value', '=', digest).executeTakeFirst();
  if (!key || !digestsEqual(key.secure_value, digest)) throw authenticationFailed();
  const user = await findUserById(deps.db, key.user_id);
  if (!user || !user.is_active) throw authenticationFailed();

  const now = deps.clock.now();
  if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await deps.db.updateTable('personal_api_keys').set({ last_used_at: now }).where('id', '=', key.id).execute();
    key.last_used_at = now;
  }
  return { user, key };
}

export function requireScopes(actor: Actor, scopes: readonly string[]) {
  const missing = firstMissingScope(actor.key.scopes, scopes);
  if (missing) throw permissionDenied(`API key missing required scope '${missing}'`);
}

function checkOrganizationRestriction(actor: Actor, organizationId: string) {
  const scoped = actor.key.scoped_organizations;
  if (scoped && scoped.length > 0 && !scoped.includes(organizationId)) {
    throw permissionDenied(`API key does not have access to the requested organization: ID ${organizationId}.`);
  }
}

export function requireAdmin(membership: MembershipRow) {
  if (membership.level < ADMIN_LEVEL) throw permissionDenied('Your organization access level is insufficient.');
}

export async function resolveOrganization(deps: Deps, actor: Actor, ref: string): Promise<OrganizationRow> {
  const organization =
    ref === '@current'
      ? await findFirstOrganizationOfUser(deps.db, actor.user.id)
      : isUuid(ref)
        ? await findOrganization(deps.db, ref.toLowerCase())
        : undefined;
  if (!organization) throw notFound();
  return organization;
}

export interface AuthorizeOptions {
  scopes: readonly string[];
  /** Writes need organization admin or owner. */
  admin?: boolean;
}

export async function authorizeOrganization(deps: Deps, actor: Actor, ref: string, options: AuthorizeOptions): Promise<OrganizationAccess> {
  const organization = await resolveOrganization(deps, actor, ref);
  checkOrganizationRestriction(actor, organization.id);
  if (actor.key.scoped_teams && actor.key.scoped_teams.length > 0) {
    throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
  }
  requireScopes(actor, options.scopes);
  const membership = await findMembership(deps.db, organization.id, actor.user.id);
  if (!membership) throw permissionDenied();
  if (options.admin) requireAdmin(membership);
  return { organization, membership };
}

export async function resolveProject(deps: Deps, actor: Actor, ref: string): Promise<TeamRow> {
  let project: TeamRow | undefined;
  if (ref === '@current') {
    const organization = await findFirstOrganizationOfUser(deps.db, actor.user.id);
    project = organization && (await findFirstTeamOfOrganization(deps.db, organization.id));
  } else if (/^\d{1,9}$/.test(ref)) {
    project = await findTeam(deps.db, Number(ref));
  }
  if (!project) throw notFound();
  return project;
}

export async function authorizeProject(deps: Deps, actor: Actor, ref: string, options: AuthorizeOptions): Promise<ProjectAccess> {
  const project = await resolveProject(deps, actor, ref);
  checkOrganizationRestriction(actor, project.organization_id);
  const teams = actor.key.scoped_teams;
  if (teams && teams.length > 0 && !teams.includes(project.id)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${project.id}.`);
  }
  requireScopes(actor, options.scopes);
  const membership = await findMembership(deps.db, project.organization_id, actor.user.id);
  if (!membership) throw permissionDenied("You don't have access to the project.");
  if (options.admin) requireAdmin(membership);
  const organization = await findOrganization(deps.db, project.organization_id);
  if (!organization) throw notFound();
  return { organization, membership, project };
}
