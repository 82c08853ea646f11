// First-run setup: a user (created or reused), an organization they own, a project, and an
// all-scopes key — one transaction, so a failure leaves nothing behind.
import { inTransaction } from '../../db/in-transaction.ts';
import { notFound } from '../../errors.ts';
import type { ApiKeyRow, TeamRow, UserRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { createPersonalApiKey } from '../api-keys/api-keys.service.ts';
import { insertProject } from '../projects/projects.repository.ts';
import { anyUserExists, findOrCreateUser, lockFirstAccount } from '../users/users.repository.ts';
import type { OrganizationWire } from '../organizations/organizations.schemas.ts';
import { createOrganization } from '../organizations/organizations.service.ts';

export interface BootstrapInput {
  email: string;
  firstName?: string;
  /** Default "Default Organization". */
  organizationName?: string;
  /** Default "Default Project". */
  projectName?: string;
}

export interface BootstrapResult {
  user: UserRow;
  organization: OrganizationWire;
  project: TeamRow;
  key: ApiKeyRow;
  keyValue: string;
}

export const setupClosed = () => notFound('Setup is closed: an account exists already. Sign in with its key.');

/**
 * `firstAccount`: only while the database holds no user (else the 404 of `setupClosed`). Every
 * bootstrap holds one advisory lock over its check and writes, so of several setup requests (in one
 * process or several on one PostgreSQL) exactly one creates the account, and a `herd bootstrap`
 * beside them either comes first (closing setup) or after.
 */
export function bootstrap(
  deps: Deps,
  input: BootstrapInput,
  options: { firstAccount?: boolean } = {},
): Promise<BootstrapResult> {
  const now = deps.clock.now();
  return inTransaction(deps.db, async (trx) => {
    const inside = { ...deps, db: trx };
    await lockFirstAccount(trx);
    if (options.firstAccount && (await anyUserExists(trx))) throw setupClosed();
    const { user } = await findOrCreateUser(trx, { email: input.email, first_name: input.firstName }, now);
    const organization = await createOrganization(inside, {
      name: input.organizationName ?? 'Default Organization',
      ownerId: user.id,
    });
    const project = await insertProject(
      trx,
      { organizationId: organization.id, name: input.projectName ?? 'Default Project' },
      now,
    );
    const { row, value } = await createPersonalApiKey(inside, null, {
      userId: user.id,
      label: 'bootstrap',
      scopes: ['*'],
    });
    return { user, organization, project, key: row, keyValue: value };
  });
}
