// First-run setup: a user (created or reused), an organization they own, a project, and an
// all-scopes key — one transaction, so a failure leaves nothing behind.
import { inTransaction } from '../../db/in-transaction.ts';
import type { ApiKeyRow, TeamRow, UserRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { createPersonalApiKey } from '../api-keys/api-keys.service.ts';
import { insertProject } from '../projects/projects.repository.ts';
import { findOrCreateUser } from '../users/users.repository.ts';
import type { OrganizationWire } from '../organizations/organizations.schemas.ts';
import { createOrganization } from '../organizations/organizations.service.ts';

export interface BootstrapInput {
  email: string;
  firstName?: string;
  organizationName: string;
  projectName: string;
}

export interface BootstrapResult {
  user: UserRow;
  organization: OrganizationWire;
  project: TeamRow;
  key: ApiKeyRow;
  keyValue: string;
}

export function bootstrap(deps: Deps, input: BootstrapInput): Promise<BootstrapResult> {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (trx) => {
    const inside = { ...deps, db: trx };
    const { user } = await findOrCreateUser(trx, { email: input.email, first_name: input.firstName }, now);
    const organization = await createOrganization(inside, { name: input.organizationName, ownerId: user.id });
    const project = await insertProject(trx, { organizationId: organization.id, name: input.projectName }, now);
    const { row, value } = await createPersonalApiKey(inside, null, {
      userId: user.id,
      label: 'bootstrap',
      scopes: ['*'],
    });
    return { user, organization, project, key: row, keyValue: value };
  });
}
