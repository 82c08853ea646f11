// Personal API keys: a user's keys listed, shown and deleted; creation with the platform's
// validation, and the key's own rules of what it may hand on (a key never mints a key broader than
// itself).
import { inTransaction } from '../../db/in-transaction.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { notFound, permissionDenied, validationError } from '../../errors.ts';
import { isUuid } from '../../wire/ids.ts';
import type { PageRequest } from '../../wire/page.ts';
import { iso, isoOrNull } from '../../wire/serializers.ts';
import type { Actor } from '../access/access.service.ts';
import { grants, isValidScope } from '../access/scopes.ts';
import { lockUser } from '../users/users.repository.ts';
import {
  countKeysOfUser,
  deleteKeyOfUser,
  findKeyOfUser,
  insertApiKey,
  listKeysOfUser,
  organizationsOfUserAmong,
  teamsOfUserAmong,
  type NewApiKey,
} from './api-keys.repository.ts';
import { MAX_KEYS_PER_USER, type PersonalApiKeyWire } from './api-keys.schemas.ts';

export type { NewApiKey };

/** The raw value is shown once, in the answer to create; reads carry only the mask. */
function serializeKey(key: ApiKeyRow, value: string | null = null): PersonalApiKeyWire {
  return {
    id: key.id,
    label: key.label,
    value,
    mask_value: key.mask_value,
    created_at: iso(key.created_at),
    last_used_at: isoOrNull(key.last_used_at),
    user_id: key.user_id,
    scopes: key.scopes.length > 0 ? key.scopes : ['*'],
    scoped_organizations: key.scoped_organizations,
    scoped_teams: key.scoped_teams,
  };
}

/** The caller's own keys, newest first. */
export async function listPersonalApiKeysPage(
  deps: Deps,
  actor: Actor,
  input: { page: PageRequest },
): Promise<{ count: number; results: PersonalApiKeyWire[] }> {
  const { count, rows } = await listKeysOfUser(deps.db, actor.user.id, input.page);
  return { count, results: rows.map((row) => serializeKey(row)) };
}

export async function getPersonalApiKey(deps: Deps, actor: Actor, input: { id: string }): Promise<PersonalApiKeyWire> {
  const row = await findKeyOfUser(deps.db, actor.user.id, input.id);
  if (!row) throw notFound();
  return serializeKey(row);
}

export async function deletePersonalApiKey(deps: Deps, actor: Actor, input: { id: string }): Promise<void> {
  if (!(await deleteKeyOfUser(deps.db, actor.user.id, input.id))) throw notFound();
}

/** Checks that need no database: label, scope strings, organization ids. Returns the cleaned input. */
export function validateNewApiKey(input: NewApiKey): NewApiKey {
  const label = input.label.trim();
  if (!label) throw validationError('This field may not be blank.', 'label', 'blank');
  if (label.length > 40)
    throw validationError('Ensure this field has no more than 40 characters.', 'label', 'max_length');
  if (input.scopes.length === 0) throw validationError('This list may not be empty.', 'scopes');
  const invalid = input.scopes.find((scope) => !isValidScope(scope));
  if (invalid !== undefined) throw validationError(`Invalid scope: ${invalid}`, 'scopes');
  const organizations = input.scopedOrganizations ?? [];
  if (organizations.some((id) => !isUuid(id)))
    throw validationError('Invalid organization UUID', 'scoped_organizations');
  return {
    userId: input.userId,
    label,
    scopes: [...new Set(input.scopes)],
    scopedOrganizations: [...new Set(organizations.map((id) => id.toLowerCase()))],
    scopedTeams: [...new Set(input.scopedTeams ?? [])],
  };
}

/** A key may hand on only scopes it holds, and only within its own organization/project limits. */
function checkGrantor(grantor: ApiKeyRow, input: NewApiKey) {
  const withheld = input.scopes.find((scope) =>
    scope === '*' ? !grantor.scopes.includes('*') : !grants(grantor.scopes, scope),
  );
  if (withheld !== undefined) throw permissionDenied(`API key missing required scope '${withheld}'`);
  const organizations = grantor.scoped_organizations ?? [];
  if (organizations.length > 0) {
    const outside = (input.scopedOrganizations ?? []).find((id) => !organizations.includes(id));
    if (outside) throw permissionDenied(`API key does not have access to the requested organization: ID ${outside}.`);
    if ((input.scopedOrganizations ?? []).length === 0) input.scopedOrganizations = organizations;
  }
  const teams = grantor.scoped_teams ?? [];
  if (teams.length > 0) {
    const outside = (input.scopedTeams ?? []).find((id) => !teams.includes(id));
    if (outside) throw permissionDenied(`API key does not have access to the requested project: ID ${outside}.`);
    if ((input.scopedTeams ?? []).length === 0) input.scopedTeams = teams;
  }
}

/**
 * Creates a key for the user after every check the platform makes. The actor's key grants it; with
 * no actor (the CLI, which is trusted) nothing limits what it may grant.
 */
export async function createPersonalApiKey(
  deps: Deps,
  actor: Actor | null,
  raw: NewApiKey,
): Promise<{ key: PersonalApiKeyWire; row: ApiKeyRow; value: string }> {
  const db = deps.db;
  const input = validateNewApiKey(raw);
  if (actor) checkGrantor(actor.key, input);
  const organizations = input.scopedOrganizations ?? [];
  const member = await organizationsOfUserAmong(db, input.userId, organizations);
  if (organizations.some((id) => !member.has(id))) {
    throw validationError(
      'You must be a member of all organizations that you are scoping the key to.',
      'scoped_organizations',
    );
  }
  const teams = input.scopedTeams ?? [];
  const accessible = await teamsOfUserAmong(db, input.userId, teams);
  if (teams.some((id) => !accessible.has(id))) {
    throw validationError('You must be a member of all teams that you are scoping the key to.', 'scoped_teams');
  }
  const created = await inTransaction(db, async (trx) => {
    // The user's row lock serializes concurrent creations, so the limit holds under races.
    await lockUser(trx, input.userId);
    if ((await countKeysOfUser(trx, input.userId)) >= MAX_KEYS_PER_USER) {
      throw validationError(
        `You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
      );
    }
    return insertApiKey(trx, input, deps.clock.now());
  });
  return { ...created, key: serializeKey(created.row, created.value) };
}
