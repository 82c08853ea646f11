import type { Db } from '../../db/database.ts';
import type { ApiKeyRow } from '../../db/schema.ts';
import { generatePersonalApiKey, hashApiKey, maskApiKey, randomBase62 } from './api-key.tokens.ts';

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

