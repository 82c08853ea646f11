// Personal API keys: creation with the platform's validation, and the key's own rules of what it may
// hand on (a key never mints a key broader than itself).
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import { permissionDenied, validationError } from '../../errors.ts';
import { isUuid } from '../access/access.service.ts';
import { grants, isValidScope } from '../access/scopes.ts';
import { generatePersonalApiKey, hashApiKey, maskApiKey, randomBase62 } from './api-key.tokens.ts';
import { countKeysOfUser, organizationsOfUserAmong, teamsOfUserAmong } from './api-keys.repository.ts';
import { MAX_KEYS_PER_USER } from './api-keys.schemas.ts';

export interface NewApiKey {
  userId: number;
  label: string;
  scopes: string[];
  scopedOrganizations?: string[] | null;
  scopedTeams?: number[] | null;
}

/** Stores only the hash and mask; the raw value is returned to be shown once. */
export async function insertApiKey(db: Db, input: NewApiKey, now: Date): Promise<{ row: ApiKeyRow; value: string }> {
  const value = generatePersonalApiKey();
  const row = await db
    .insertInto('personal_api_keys')
    .values({
      id: randomBase62(16),
      user_id: input.userId,
      label: input.label,
      secure_value: hashApiKey(value),
      mask_value: maskApiKey(value),
      scopes: input.scopes,
      scoped_organizations: input.scopedOrganizations && input.scopedOrganizations.length > 0 ? input.scopedOrganizations : null,
      scoped_teams: input.scopedTeams && input.scopedTeams.length > 0 ? input.scopedTeams : null,
      created_at: now,
      last_used_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, value };
}

/** Checks that need no database: label, scope strings, organization ids. Returns the cleaned input. */
export function validateNewApiKey(input: NewApiKey): NewApiKey {
  const label = input.label.trim();
  if (!label) throw validationError('This field may not be blank.', 'label', 'blank');
  if (label.length > 40) throw validationError('Ensure this field has no more than 40 characters.', 'label', 'max_length');
  if (input.scopes.length === 0) throw validationError('This list may not be empty.', 'scopes');
  const invalid = input.scopes.find((scope) => !isValidScope(scope));
  if (invalid !== undefined) throw validationError(`Invalid scope: ${invalid}`, 'scopes');
  const organizations = input.scopedOrganizations ?? [];
  if (organizations.some((id) => !isUuid(id))) throw validationError('Invalid organization UUID', 'scoped_organizations');
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
  const withheld = input.scopes.find((scope) => (scope === '*' ? !grantor.scopes.includes('*') : !grants(grantor.scopes, scope)));
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
 * Creates a key for the user after every check the platform makes. `grantor` is the key of the
 * request (absent for the CLI, which is trusted).
 */
export async function createPersonalApiKey(db: Db, raw: NewApiKey, now: Date, grantor?: ApiKeyRow): Promise<{ row: ApiKeyRow; value: string }> {
  const input = validateNewApiKey(raw);
  if (grantor) checkGrantor(grantor, input);
  const organizations = input.scopedOrganizations ?? [];
  const member = await organizationsOfUserAmong(db, input.userId, organizations);
  if (organizations.some((id) => !member.has(id))) {
    throw validationError('You must be a member of all organizations that you are scoping the key to.', 'scoped_organizations');
  }
  const teams = input.scopedTeams ?? [];
  const accessible = await teamsOfUserAmong(db, input.userId, teams);
  if (teams.some((id) => !accessible.has(id))) {
    throw validationError('You must be a member of all teams that you are scoping the key to.', 'scoped_teams');
  }
  return inTransaction(db, async (trx) => {
    // The user's row lock serializes concurrent creations, so the limit holds under races.
    await trx.selectFrom('users').select('id').where('id', '=', input.userId).forUpdate().execute();
    if ((await countKeysOfUser(trx, input.userId)) >= MAX_KEYS_PER_USER) {
      throw validationError(`You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`);
    }
    return insertApiKey(trx, input, now);
  });
}
