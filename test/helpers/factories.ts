// Rows for tests, made through the same repository functions the services use; persons written
// straight into their tables.
import crypto from 'node:crypto';
import type { Db } from '../../src/db/database.ts';
import type { JsonObject, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../src/db/schema.ts';
import { OWNER_LEVEL } from '../../src/modules/access/access.service.ts';
import { insertApiKey } from '../../src/modules/api-keys/api-keys.repository.ts';
import {
  findMembership,
  insertMembership,
  insertOrganization,
} from '../../src/modules/organizations/organizations.repository.ts';
import { insertProject } from '../../src/modules/projects/projects.repository.ts';
import { findOrCreateUser } from '../../src/modules/users/users.repository.ts';

const unique = () => crypto.randomBytes(4).toString('hex');

export async function makeUser(
  db: Db,
  fields: { email?: string; first_name?: string; last_name?: string } = {},
): Promise<UserRow> {
  const { user } = await findOrCreateUser(
    db,
    { email: fields.email ?? `user-${unique()}@example.com`, ...fields },
    new Date(),
  );
  return user;
}

export async function makeOrganization(db: Db, owner: UserRow, name = `Org ${unique()}`): Promise<OrganizationRow> {
  return db.transaction().execute(async (trx) => {
    const organization = await insertOrganization(trx, { name }, new Date());
    await insertMembership(trx, organization.id, owner.id, OWNER_LEVEL, new Date());
    return organization;
  });
}

export function makeMember(db: Db, organization: OrganizationRow, user: UserRow, level = 1): Promise<MembershipRow> {
  return insertMembership(db, organization.id, user.id, level, new Date());
}

export function makeProject(db: Db, organization: OrganizationRow, name = `Project ${unique()}`): Promise<TeamRow> {
  return insertProject(db, { organizationId: organization.id, name }, new Date());
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

export interface TestPerson {
  id: number;
  uuid: string;
  teamId: number;
  /** The first of its distinct ids (undefined when it has none). */
  distinctId: string;
  distinctIds: string[];
  properties: JsonObject;
}

/** A person with its distinct ids, written straight into the tables; created on 2020-01-01 unless told. */
export async function makePerson(
  db: Db,
  teamId: number,
  options: { properties?: JsonObject; distinctIds?: string[]; createdAt?: Date | string; uuid?: string } = {},
): Promise<TestPerson> {
  const distinctIds = options.distinctIds ?? [`person-${unique()}`];
  const properties = options.properties ?? {};
  const row = await db
    .insertInto('persons')
    .values({
      team_id: teamId,
      uuid: options.uuid ?? crypto.randomUUID(),
      properties: JSON.stringify(properties),
      created_at: new Date(options.createdAt ?? '2020-01-01T00:00:00Z'),
    })
    .returning(['id', 'uuid'])
    .executeTakeFirstOrThrow();
  if (distinctIds.length > 0) {
    await db
      .insertInto('person_distinct_ids')
      .values(distinctIds.map((distinctId) => ({ team_id: teamId, distinct_id: distinctId, person_id: row.id })))
      .execute();
  }
  return { id: row.id, uuid: row.uuid, teamId, distinctId: distinctIds[0], distinctIds, properties };
}
