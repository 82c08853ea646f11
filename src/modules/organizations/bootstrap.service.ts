// First-run setup: a user (created or reused), an organization they own, a project, and an
// all-scopes key — one transaction, so a failure leaves nothing behind.
import type { Db } from '../../db/database.ts';
import type { ApiKeyRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { createPersonalApiKey } from '../api-keys/api-keys.service.ts';
import { createProject } from '../projects/projects.service.ts';
import { findOrCreateUser } from '../users/users.repository.ts';
import { createOrganization } from './organizations.service.ts';

export interface BootstrapInput {
  email: string;
  firstName?: string;
  organizationName: string;
  projectName: string;
}

export interface BootstrapResult {
  user: UserRow;
  organization: OrganizationRow;
  project: TeamRow;
  key: ApiKeyRow;
  keyValue: string;
}

export function bootstrap(db: Db, input: BootstrapInput, now: Date): Promise<BootstrapResult> {
  return inTransaction(db, async (trx) => {
    const { user } = await findOrCreateUser(trx, { email: input.email, first_name: input.firstName }, now);
    const organization = await createOrganization(trx, { name: input.organizationName, ownerId: user.id }, now);
    const project = await createProject(trx, { organizationId: organization.id, name: input.projectName }, now);
    const { row, value } = await createPersonalApiKey(trx, { userId: user.id, label: 'bootstrap', scopes: ['*'] }, now);
    return { user, organization, project, key: row, keyValue: value };
  });
}
