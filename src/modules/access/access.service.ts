// Who is calling and what they may touch. The order of checks follows the platform:
// bad key → 401; unknown organization/project → 404; key restrictions → 403; missing scope → 403;
// not a member → 403; a member writing where admins must → 403.
import type { ApiKeyRow, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { authenticationFailed, notAuthenticated, notFound, permissionDenied } from '../../errors.ts';
import { digestsEqual, hashApiKey } from '../api-keys/api-key.tokens.ts';
import { findFirstOrganizationOfUser } from '../organizations/organizations.repository.ts';
import { findFirstTeamOfOrganization } from '../projects/projects.repository.ts';
import { findKeyWithUser, findOrganizationForUser, findProjectForUser } from './access.repository.ts';
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
  const found = await findKeyWithUser(deps.db, digest);
  if (!found || !digestsEqual(found.key.secure_value, digest) || !found.user.is_active) throw authenticationFailed();
  const { key, user } = found;

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

async function resolveOrganization(deps: Deps, actor: Actor, ref: string) {
  let id: string | undefined;
  if (ref === '@current') id = (await findFirstOrganizationOfUser(deps.db, actor.user.id))?.id;
  else if (isUuid(ref)) id = ref.toLowerCase();
  const found = id && (await findOrganizationForUser(deps.db, id, actor.user.id));
  if (!found) throw notFound();
  return found;
}

export interface AuthorizeOptions {
  scopes: readonly string[];
  /** Writes need organization admin or owner. */
  admin?: boolean;
}

export async function authorizeOrganization(deps: Deps, actor: Actor, ref: string, options: AuthorizeOptions): Promise<OrganizationAccess> {
  const { organization, membership } = await resolveOrganization(deps, actor, ref);
  checkOrganizationRestriction(actor, organization.id);
  if (actor.key.scoped_teams && actor.key.scoped_teams.length > 0) {
    throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
  }
  requireScopes(actor, options.scopes);
  if (!membership) throw permissionDenied();
  if (options.admin) requireAdmin(membership);
  return { organization, membership };
}

async function resolveProject(deps: Deps, actor: Actor, ref: string) {
  let id: number | undefined;
  if (ref === '@current') {
    const organization = await findFirstOrganizationOfUser(deps.db, actor.user.id);
    id = organization && (await findFirstTeamOfOrganization(deps.db, organization.id))?.id;
  } else if (/^\d{1,9}$/.test(ref)) {
    id = Number(ref);
  }
  const found = id !== undefined && (await findProjectForUser(deps.db, id, actor.user.id));
  if (!found) throw notFound();
  return found;
}

export async function authorizeProject(deps: Deps, actor: Actor, ref: string, options: AuthorizeOptions): Promise<ProjectAccess> {
  const { project, organization, membership } = await resolveProject(deps, actor, ref);
  checkOrganizationRestriction(actor, project.organization_id);
  const teams = actor.key.scoped_teams;
  if (teams && teams.length > 0 && !teams.includes(project.id)) {
    throw permissionDenied(`API key does not have access to the requested project: ID ${project.id}.`);
  }
  requireScopes(actor, options.scopes);
  if (!membership) throw permissionDenied("You don't have access to the project.");
  if (options.admin) requireAdmin(membership);
  return { organization, membership, project };
}
