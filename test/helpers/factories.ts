// Rows for tests, made through the same service functions the API and CLI use.
import crypto from 'node:crypto';
import type { Db } from '../../src/db/database.ts';
import type { MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../src/db/schema.ts';
import { insertApiKey } from '../../src/modules/api-keys/api-keys.service.ts';
import { findMembership } from '../../src/modules/organizations/organizations.repository.ts';
import { addMembership, createOrganization } from '../../src/modules/organizations/organizations.service.ts';
import { createProject } from '../../src/modules/projects/projects.service.ts';
import { findOrCreateUser } from '../../src/modules/users/users.repository.ts';

const unique = () => crypto.randomBytes(4).toString('hex');

export async function makeUser(db: Db, fields: { email?: string; first_name?: string; last_name?: string } = {}): Promise<UserRow> {
  const { user } = await findOrCreateUser(db, { email: fields.email ?? `user-${unique()}@example.com`, ...fields }, new Date());
  return user;
}

export async function makeOrganization(db: Db, owner: UserRow, name = `Org ${unique()}`): Promise<OrganizationRow> {
  return createOrganization(db, { name, ownerId: owner.id }, new Date());
}

export function makeMember(db: Db, organization: OrganizationRow, user: UserRow, level = 1): Promise<MembershipRow> {
  return addMembership(db, organization.id, user.id, level, new Date());
}

export function makeProject(db: Db, organization: OrganizationRow, name = `Project ${unique()}`): Promise<TeamRow> {
  return createProject(db, { organizationId: organization.id, name }, new Date());
}

export async function makeKey(
  db: Db,
  user: UserRow,
  options: { scopes?: string[]; scopedOrganizations?: string[]; scopedTeams?: number[] } = {},
): Promise<string> {
  const { value } = await insertApiKey(
    db,
    {
      userId: user.id,
      label: `key ${unique()}`,
      scopes: options.scopes ?? ['*'],
      scopedOrganizations: options.scopedOrganizations,
      scopedTeams: options.scopedTeams,
    },
    new Date(),
  );
  return value;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export interface Tenant {
  organization: OrganizationRow;
  owner: UserRow;
  membership: MembershipRow;
  project: TeamRow;
  key: string;
  headers: { authorization: string };
}

/** An organization with an owner, one project and an all-scopes key of the owner. */
export async function makeTenant(db: Db, options: { scopes?: string[] } = {}): Promise<Tenant> {
  const owner = await makeUser(db);
  const organization = await makeOrganization(db, owner);
  const membership = await findMembership(db, organization.id, owner.id);
  if (!membership) throw new Error('owner membership missing');
  const project = await makeProject(db, organization);
  const key = await makeKey(db, owner, { scopes: options.scopes });
  return { organization, owner, membership, project, key, headers: bearer(key) };
}

/** A user of the tenant's organization at the given level, with a key of the given scopes. */
export async function makeTenantMember(db: Db, tenant: Tenant, level = 1, scopes: string[] = ['*']) {
  const user = await makeUser(db);
  const membership = await makeMember(db, tenant.organization, user, level);
  const key = await makeKey(db, user, { scopes });
  return { user, membership, key, headers: bearer(key) };
}
