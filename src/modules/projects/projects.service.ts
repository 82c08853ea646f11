import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import { generateProjectToken } from '../api-keys/api-key.tokens.ts';

export function createProject(db: Db, input: { organizationId: string; name: string }, now: Date): Promise<TeamRow> {
  return db
    .insertInto('teams')
    .values({
      uuid: crypto.randomUUID(),
      organization_id: input.organizationId,
      name: input.name,
      api_token: generateProjectToken(),
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
