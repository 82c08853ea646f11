// Who is calling and what they may touch. The order of checks follows the platform:
// bad key → 401; unknown organization/project → 404; key restrictions → 403; missing scope → 403;
// not a member → 403; a member writing where admins must → 403.
import type { ApiKeyRow, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { authenticationFailed, notAuthenticated, notFound, permissionDenied } from '../../errors.ts';
import { isUuid } from '../../wire/ids.ts';
import { digestsEqual, hashApiKey } from './api-key.tokens.ts';
import {
  findFirstOrganizationOfUser,
  findFirstTeamOfOrganization,
  findKeyWithUser,
  findOrganizationForUser,
  findProjectForUser,
  touchKeyLastUsed,
} from './access.repository.ts';
import { firstMissingScope } from './scopes.ts';

export const ADMIN_LEVEL = 8;
export const OWNER_LEVEL = 15;

/** Who acts: the user of the personal API key the request carries, and that key. */
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

const LAST_USED_RESOLUTION_MS = 60 * 60 * 1000;

/** The digest of the key in "Authorization: Bearer <key>" (scheme case-insensitive). */
function digestOf(authorization: string | undefined): string {
  const match = authorization?.match(/^bearer\s+(\S.*)$/i);
  if (!match) throw notAuthenticated();
  return hashApiKey(match[1].trim());
}

/** The caller, once the looked-up key is checked: it exists, matches, and its user is active. */
async function acceptKey(deps: Deps, digest: string, found: { key: ApiKeyRow; user: UserRow } | undefined): Promise<Actor> {
  if (!found || !digestsEqual(found.key.secure_value, digest) || !found.user.is_active) throw authenticationFailed();
  const { key, user } = found;
  const now = deps.clock.now();
  if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > LAST_USED_RESOLUTION_MS) {
    await touchKeyLastUsed(deps.db, key.id, now);
    key.last_used_at = now;
  }
  return { user, key };
}

/** Finds the key's active user, or 401. */
export async function authenticate(deps: Deps, authorization: string | undefined): Promise<Actor> {
  const digest = digestOf(authorization);
  return acceptKey(deps, digest, await findKeyWithUser(deps.db, digest));
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

const PROJECT_ID = /^\d{1,9}$/;

type FoundOrganization = Awaited<ReturnType<typeof findOrganizationForUser>>;
type FoundProject = Awaited<ReturnType<typeof findProjectForUser>>;

async function findCurrentOrganization(deps: Deps, actor: Actor): Promise<FoundOrganization> {
  const id = (await findFirstOrganizationOfUser(deps.db, actor.user.id))?.id;
  return id === undefined ? undefined : findOrganizationForUser(deps.db, id, { userId: actor.user.id });
}

async function findCurrentProject(deps: Deps, actor: Actor): Promise<FoundProject> {
  const organization = await findFirstOrganizationOfUser(deps.db, actor.user.id);
  const id = organization && (await findFirstTeamOfOrganization(deps.db, organization.id))?.id;
  return id === undefined ? undefined : findProjectForUser(deps.db, id, { userId: actor.user.id });
}

export interface AuthorizeOptions {
  scopes: readonly string[];
  /** Writes need organization admin or owner. */
  admin?: boolean;
}

export interface OrganizationTarget extends AuthorizeOptions {
  /** An organization's uuid or `@current` (the user's first). */
  organization: string;
}

function checkOrganizationAccess(actor: Actor, found: FoundOrganization, options: AuthorizeOptions): OrganizationAccess {
  if (!found) throw notFound();
  const { organization, membership } = found;
  checkOrganizationRestriction(actor, organization.id);
  if (actor.key.scoped_teams && actor.key.scoped_teams.length > 0) {
    throw permissionDenied('API keys with scoped projects are only supported on project-based endpoints.');
  }
  requireScopes(actor, options.scopes);
  if (!membership) throw permissionDenied();
  if (options.admin) requireAdmin(membership);
  return { organization, membership };
}

function checkProjectAccess(actor: Actor, found: FoundProject, options: AuthorizeOptions): ProjectAccess {
  if (!found) throw notFound();
  const { project, organization, membership } = found;
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

export async function authorizeOrganization(deps: Deps, actor: Actor, input: OrganizationTarget): Promise<OrganizationAccess> {
  const ref = input.organization;
  const found = ref === '@current'
    ? await findCurrentOrganization(deps, actor)
    : isUuid(ref) ? await findOrganizationForUser(deps.db, ref.toLowerCase(), { userId: actor.user.id }) : undefined;
  return checkOrganizationAccess(actor, found, input);
}

export interface RequestToAuthorize extends AuthorizeOptions {
  /** The request's Authorization header. */
  authorization: string | undefined;
  /** A project id or `@current`, from the path. */
  project?: string;
  /** An organization uuid or `@current`, from the path. */
  organization?: string;
}

/**
 * Authenticates a request and authorizes it for its target, in the platform's order of checks.
 * A target named by id is looked up beside the key — its membership found through the key's
 * digest — so a request waits for one round trip to PostgreSQL instead of two.
 */
export async function authorizeRequest(
  deps: Deps,
  input: RequestToAuthorize,
): Promise<{ actor: Actor; project?: ProjectAccess; organization?: OrganizationAccess }> {
  const digest = digestOf(input.authorization);
  const byKey = { keyDigest: digest };
  const projectId = input.project !== undefined && PROJECT_ID.test(input.project) ? Number(input.project) : undefined;
  const organizationId = input.organization !== undefined && isUuid(input.organization) ? input.organization.toLowerCase() : undefined;
  const [key, project, organization] = await Promise.all([
    findKeyWithUser(deps.db, digest),
    projectId === undefined ? undefined : findProjectForUser(deps.db, projectId, byKey),
    organizationId === undefined ? undefined : findOrganizationForUser(deps.db, organizationId, byKey),
  ]);
  const actor = await acceptKey(deps, digest, key);
  if (input.project !== undefined) {
    const found = input.project === '@current' ? await findCurrentProject(deps, actor) : project;
    return { actor, project: checkProjectAccess(actor, found, input) };
  }
  if (input.organization !== undefined) {
    const found = input.organization === '@current' ? await findCurrentOrganization(deps, actor) : organization;
    return { actor, organization: checkOrganizationAccess(actor, found, input) };
  }
  requireScopes(actor, input.scopes);
  return { actor };
}
