// Two tenants for the reliability harnesses, their objects created through the API (a step that
// fails stops the harness: a missing object would shrink what the scenarios check), and the ids
// each scenario substitutes.
import crypto from 'node:crypto';
import type { TeamRow, UserRow } from '../../src/db/schema.ts';
import type { InjectOptions } from 'fastify';
import type { App } from '../../src/http/route-module.ts';
import type { Deps } from '../../src/deps.ts';
import { bearer, makeKey, makeMember, makeProject, makeTenant, makeUser, type Tenant } from '../helpers/factories.ts';

/** Candidate values per resource (`roles` → [role id]); the first is the one used. */
export type ResourceIds = Record<string, string[]>;

export interface World {
  a: Tenant;
  a2: TeamRow;
  aMember: UserRow;
  b: Tenant;
  /** A key of A's owner limited to project A1 (`scoped_teams`). */
  scopedHeaders: { authorization: string };
  /** A's objects (in A1), A's objects with the project A2, and B's. */
  idsA: ResourceIds;
  idsA2: ResourceIds;
  idsB: ResourceIds;
  /** What was created through the API, for the diagnostics. */
  seeded: string[];
  /** Distinct ids of A1's captured persons. */
  distinctIdsA: string[];
}

export const CAPTURE_PATHS = ['/batch/', '/capture/', '/e/', '/i/v0/e/'];

export function captureBatch(token: string, events: Record<string, unknown>[]) {
  const now = new Date().toISOString();
  return {
    api_key: token,
    batch: events.map((event) => ({ uuid: crypto.randomUUID(), timestamp: now, properties: {}, ...event })),
  };
}

async function injectExpecting(app: App, status: number, request: InjectOptions) {
  const res = await app.inject(request);
  if (res.statusCode !== status)
    throw new Error(
      `seeding: ${String(request.method)} ${String(request.url)} answered ${res.statusCode}, not ${status}: ${res.body}`,
    );
  return res;
}

async function personIds(deps: Deps, project: TeamRow): Promise<{ id: string; uuid: string }[]> {
  const rows = await deps.db
    .selectFrom('persons')
    .select(['id', 'uuid'])
    .where('team_id', '=', project.id)
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: String(row.id), uuid: row.uuid }));
}

async function seedProjectObjects(
  app: App,
  deps: Deps,
  tenant: Tenant,
  project: TeamRow,
  label: string,
  seeded: string[],
) {
  const ids: ResourceIds = {};
  const distinctIds = [
    `${label}-user-${crypto.randomBytes(3).toString('hex')}`,
    `${label}-anon-${crypto.randomBytes(3).toString('hex')}`,
  ];
  await injectExpecting(app, 200, {
    method: 'POST',
    url: '/batch/',
    payload: captureBatch(project.api_token, [
      { event: '$pageview', distinct_id: distinctIds[1], properties: { $current_url: 'https://example.com/' } },
      {
        event: '$identify',
        distinct_id: distinctIds[0],
        properties: { $anon_distinct_id: distinctIds[1], $set: { email: `${label}@example.com`, name: label } },
      },
    ]),
  });
  seeded.push(`captured events (${label})`);
  const event = await deps.db
    .selectFrom('events')
    .select('uuid')
    .where('team_id', '=', project.id)
    .orderBy('timestamp')
    .executeTakeFirstOrThrow();
  ids.events = [event.uuid];
  const persons = await personIds(deps, project);
  if (persons.length !== 1) throw new Error(`seeding: the capture left ${persons.length} persons in ${label}, not 1`);
  ids.persons = [persons[0].id, persons[0].uuid];

  const base = `/api/projects/${project.id}`;
  await injectExpecting(app, 200, {
    method: 'PATCH',
    url: `${base}/persons/${ids.persons[0]}/`,
    headers: tenant.headers,
    payload: { properties: { plan: 'pro' } },
  });
  seeded.push(`person property update (${label})`);
  const payloads = [
    {
      name: `${label} cohort`,
      filters: {
        properties: { type: 'AND', values: [{ key: 'email', value: `${label}@example.com`, type: 'person' }] },
      },
    },
    { name: `${label} static cohort`, is_static: true, distinct_ids: [distinctIds[0]] },
  ];
  for (const payload of payloads) {
    const res = await injectExpecting(app, 201, {
      method: 'POST',
      url: `${base}/cohorts/`,
      headers: tenant.headers,
      payload,
    });
    ids.cohorts ??= [String(res.json().id)];
    seeded.push(`cohort (${label})`);
  }
  const insight = await injectExpecting(app, 201, {
    method: 'POST',
    url: `${base}/insights/`,
    headers: tenant.headers,
    payload: { name: `${label} insight`, filters: { insight: 'TRENDS', events: [{ id: '$pageview' }] } },
  });
  ids.insights = [String(insight.json().id)];
  seeded.push(`saved insight (${label})`);
  return { ids, distinctIds };
}

async function seedOrganizationObjects(app: App, tenant: Tenant, member: UserRow, seeded: string[]) {
  const base = `/api/organizations/${tenant.organization.id}`;
  const role = await injectExpecting(app, 201, {
    method: 'POST',
    url: `${base}/roles/`,
    headers: tenant.headers,
    payload: { name: `Role ${crypto.randomBytes(3).toString('hex')}` },
  });
  seeded.push('role');
  const roleId: string = role.json().id;
  const membership = await injectExpecting(app, 201, {
    method: 'POST',
    url: `${base}/roles/${roleId}/role_memberships/`,
    headers: tenant.headers,
    payload: { user_uuid: member.uuid },
  });
  seeded.push('role membership');
  return { roles: [roleId], role_memberships: [membership.json().id as string] } satisfies ResourceIds;
}

async function keyIdOf(deps: Deps, user: UserRow): Promise<string> {
  const row = await deps.db
    .selectFrom('personal_api_keys')
    .select('id')
    .where('user_id', '=', user.id)
    .orderBy('created_at')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function buildWorld(app: App, deps: Deps): Promise<World> {
  const db = deps.db;
  const seeded: string[] = [];
  const a = await makeTenant(db);
  const a2 = await makeProject(db, a.organization, 'A2');
  const aMember = await makeUser(db);
  await makeMember(db, a.organization, aMember, 1);
  const b = await makeTenant(db);
  const bMember = await makeUser(db);
  await makeMember(db, b.organization, bMember, 1);
  const scopedKey = await makeKey(db, a.owner, { scopes: ['*'], scopedTeams: [a.project.id] });

  const a1Objects = await seedProjectObjects(app, deps, a, a.project, 'a1', seeded);
  const a2Objects = await seedProjectObjects(app, deps, a, a2, 'a2', seeded);
  const bObjects = await seedProjectObjects(app, deps, b, b.project, 'b', seeded);
  const aOrg = await seedOrganizationObjects(app, a, aMember, seeded);
  const bOrg = await seedOrganizationObjects(app, b, bMember, seeded);

  const idsA: ResourceIds = {
    organizations: [a.organization.id],
    projects: [String(a.project.id)],
    members: [aMember.uuid],
    personal_api_keys: [await keyIdOf(deps, a.owner)],
    ...aOrg,
    ...a1Objects.ids,
  };
  const idsA2: ResourceIds = { ...idsA, projects: [String(a2.id)], ...a2Objects.ids };
  const idsB: ResourceIds = {
    organizations: [b.organization.id],
    projects: [String(b.project.id)],
    members: [bMember.uuid],
    personal_api_keys: [await keyIdOf(deps, b.owner)],
    ...bOrg,
    ...bObjects.ids,
  };
  return {
    a,
    a2,
    aMember,
    b,
    scopedHeaders: bearer(scopedKey),
    idsA,
    idsA2,
    idsB,
    seeded,
    distinctIdsA: a1Objects.distinctIds,
  };
}

/** Body fields named after a resource take the target tenant's value. */
export function bodyIdsOf(ids: ResourceIds, distinctIds: string[]): Record<string, unknown> {
  const first = (resource: string) => ids[resource]?.[0];
  const numeric = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : value);
  const out: Record<string, unknown> = {
    organization_id: first('organizations'),
    project_id: numeric(first('projects')),
    team_id: numeric(first('projects')),
    user_uuid: first('members'),
    role_id: first('roles'),
    person_id: numeric(first('persons')),
    cohort_id: numeric(first('cohorts')),
    ids: first('persons') !== undefined ? [numeric(first('persons'))] : undefined,
    distinct_id: distinctIds[0],
    main_distinct_id: distinctIds[0],
    distinct_ids: [distinctIds[0]],
    scoped_organizations: first('organizations') !== undefined ? [first('organizations')] : undefined,
    scoped_teams: first('projects') !== undefined ? [numeric(first('projects'))] : undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, value]) => value !== undefined));
}
