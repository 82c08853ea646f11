// Who is calling and what they may touch. The order of checks follows the platform:
// bad key → 401; unknown organization/project → 404; key restrictions → 403; missing scope → 403;
// not a member → 403; a member writing where admins must → 403.
import type { MembershipRow, OrganizationRow, TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { authenticationFailed, notAuthenticated, notFound, permissionDenied } from '../../errors.ts';
import { isUuid } from '../../wire/ids.ts';
import type { AccessCache, CachedActor } from './access-cache.ts';
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
export type Actor = CachedActor;

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

/** The looked-up key, when it exists and matches. */
function matchingKey(digest: string, found: CachedActor | undefined): CachedActor {
  if (!found || !digestsEqual(found.key.secure_value, digest)) throw authenticationFailed();
  return found;
}

/**
 * The caller, once its user is known to be active; `last_used_at` is written when it is an hour
 * old (its resolution), so at most once an hour per key and process.
 */
async function acceptKey(deps: Deps, digest: string, found: CachedActor, cache: AccessCache | null): Promise<Actor> {
  if (!found.user.is_active) throw authenticationFailed();
  const now = deps.clock.now();
  const lastUsed = found.key.last_used_at;
  if (lastUsed && now.getTime() - lastUsed.getTime() <= LAST_USED_RESOLUTION_MS) return found;
  await touchKeyLastUsed(deps.db, found.key.id, now);
  const used = { user: found.user, key: { ...found.key, last_used_at: now } };
  return cache ? cache.refreshActor(digest, used) : used;
}

/** Finds the key's active user, or 401. */
export async function authenticate(deps: Deps, authorization: string | undefined): Promise<Actor> {
  const digest = digestOf(authorization);
  return acceptKey(deps, digest, matchingKey(digest, await findKeyWithUser(deps.db, digest)), null);
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

function checkOrganizationAccess(
  actor: Actor,
  found: FoundOrganization,
  options: AuthorizeOptions,
): OrganizationAccess {
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

export async function authorizeOrganization(
  deps: Deps,
  actor: Actor,
  input: OrganizationTarget,
): Promise<OrganizationAccess> {
  const ref = input.organization;
  const found =
    ref === '@current'
      ? await findCurrentOrganization(deps, actor)
      : isUuid(ref)
        ? await findOrganizationForUser(deps.db, ref.toLowerCase(), { userId: actor.user.id })
        : undefined;
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

interface LookedUpByKey {
  actor: CachedActor;
  project: FoundProject;
  organization: FoundOrganization;
}

/**
 * The key with its user, and the target named by id with the membership found through the key's
 * digest, looked up at once: one round trip instead of two. Kept in the cache when there is one.
 */
async function lookUpByKey(
  deps: Deps,
  cache: AccessCache | null,
  digest: string,
  projectId?: number,
  organizationId?: string,
): Promise<LookedUpByKey> {
  const since = cache?.changes ?? 0;
  const byKey = { keyDigest: digest };
  const [key, project, organization] = await Promise.all([
    findKeyWithUser(deps.db, digest),
    projectId === undefined ? undefined : findProjectForUser(deps.db, projectId, byKey),
    organizationId === undefined ? undefined : findOrganizationForUser(deps.db, organizationId, byKey),
  ]);
  const found = matchingKey(digest, key);
  if (!cache) return { actor: found, project, organization };
  const userId = found.user.id;
  return {
    actor: cache.keepActor(digest, found, since),
    project: project && projectId !== undefined ? cache.keepProject(userId, projectId, project, since) : project,
    organization:
      organization && organizationId !== undefined
        ? cache.keepOrganization(userId, organizationId, organization, since)
        : organization,
  };
}

async function findProject(
  deps: Deps,
  cache: AccessCache | null,
  actor: Actor,
  ref: string,
  projectId?: number,
): Promise<FoundProject> {
  const cacheRef = ref === '@current' ? ref : projectId;
  if (cacheRef === undefined) return undefined;
  const userId = actor.user.id;
  const kept = cache?.project(userId, cacheRef);
  if (kept) return kept as FoundProject;
  const since = cache?.changes ?? 0;
  const found =
    ref === '@current'
      ? await findCurrentProject(deps, actor)
      : await findProjectForUser(deps.db, cacheRef as number, { userId });
  return found && cache ? cache.keepProject(userId, cacheRef, found, since) : found;
}

async function findOrganization(
  deps: Deps,
  cache: AccessCache | null,
  actor: Actor,
  ref: string,
  organizationId?: string,
): Promise<FoundOrganization> {
  const cacheRef = ref === '@current' ? ref : organizationId;
  if (cacheRef === undefined) return undefined;
  const userId = actor.user.id;
  const kept = cache?.organization(userId, cacheRef);
  if (kept) return kept as FoundOrganization;
  const since = cache?.changes ?? 0;
  const found =
    ref === '@current'
      ? await findCurrentOrganization(deps, actor)
      : await findOrganizationForUser(deps.db, cacheRef, { userId });
  return found && cache ? cache.keepOrganization(userId, cacheRef, found, since) : found;
}

/**
 * Authenticates a request and authorizes it for its target, in the platform's order of checks.
 * With a cache, a known key and target need no database at all; otherwise a target named by id is
 * looked up beside the key (its membership found through the key's digest), so a request waits
 * for one round trip to PostgreSQL instead of two.
 */
export async function authorizeRequest(
  deps: Deps,
  input: RequestToAuthorize,
  cache: AccessCache | null = null,
): Promise<{ actor: Actor; project?: ProjectAccess; organization?: OrganizationAccess }> {
  const digest = digestOf(input.authorization);
  const projectId = input.project !== undefined && PROJECT_ID.test(input.project) ? Number(input.project) : undefined;
  const organizationId =
    input.organization !== undefined && isUuid(input.organization) ? input.organization.toLowerCase() : undefined;
  const known = cache?.actor(digest);
  const looked = known ? null : await lookUpByKey(deps, cache, digest, projectId, organizationId);
  const actor = await acceptKey(deps, digest, known ?? (looked as LookedUpByKey).actor, cache);
  if (input.project !== undefined) {
    const found =
      looked && input.project !== '@current'
        ? looked.project
        : await findProject(deps, cache, actor, input.project, projectId);
    return { actor, project: checkProjectAccess(actor, found, input) };
  }
  if (input.organization !== undefined) {
    const found =
      looked && input.organization !== '@current'
        ? looked.organization
        : await findOrganization(deps, cache, actor, input.organization, organizationId);
    return { actor, organization: checkOrganizationAccess(actor, found, input) };
  }
  requireScopes(actor, input.scopes);
  return { actor };
}
