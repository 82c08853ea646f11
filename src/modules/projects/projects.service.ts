import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { validationError } from '../../errors.ts';
import { authorizeOrganization, type Actor } from '../access/access.service.ts';
import { generateProjectToken } from '../api-keys/api-key.tokens.ts';
import { findOrganization } from '../organizations/organizations.repository.ts';

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

/** A project in the given organization (default: the caller's @current one); needs admin there. */
export async function createProjectAs(deps: Deps, actor: Actor, input: { name: string; organizationId?: string }): Promise<TeamRow> {
  const name = input.name.trim();
  if (!name) throw validationError('This field may not be blank.', 'name', 'blank');
  if (input.organizationId && !(await findOrganization(deps.db, input.organizationId.toLowerCase()))) {
    throw validationError('Organization does not exist.', 'organization_id');
  }
  const { organization } = await authorizeOrganization(deps, actor, input.organizationId?.toLowerCase() ?? '@current', {
    scopes: ['project:write'],
    admin: true,
  });
  return createProject(deps.db, { organizationId: organization.id, name }, deps.clock.now());
}
