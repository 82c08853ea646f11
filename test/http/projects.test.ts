import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  bearer,
  makeKey,
  makeMember,
  makeOrganization,
  makeProject,
  makeTenant,
  makeTenantMember,
  type Tenant,
} from '../helpers/factories.ts';

describe('projects', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  const get = (url: string, headers = tenant.headers) => ctx.app.inject({ method: 'GET', url, headers });
  const create = (payload: object, headers = tenant.headers) =>
    ctx.app.inject({ method: 'POST', url: '/api/projects/', headers, payload });

  it('lists the projects of the user’s organizations with the project shape', async () => {
    const res = await get('/api/projects/');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.count, 1);
    assert.deepEqual(body.results[0], {
      id: tenant.project.id,
      uuid: tenant.project.uuid,
      organization: tenant.organization.id,
      name: tenant.project.name,
      api_token: tenant.project.api_token,
      created_at: tenant.project.created_at.toISOString(),
      data_retention_days: null,
    });
    assert.match(body.results[0].api_token, /^phc_/);
  });

  it('does not list projects of organizations the user is not in', async () => {
    const other = await makeTenant(ctx.deps.db);
    const ids = (await get('/api/projects/')).json().results.map((p: { id: number }) => p.id);
    assert.ok(!ids.includes(other.project.id));
  });

  it('creates a project in the @current organization (201) and in a named one', async () => {
    const res = await create({ name: '  Second  ', ignored: 1 });
    assert.equal(res.statusCode, 201, res.body);
    const project = res.json();
    assert.equal(project.name, 'Second');
    assert.equal(project.organization, tenant.organization.id);
    assert.match(project.api_token, /^phc_/);

    const organization = await makeOrganization(ctx.deps.db, tenant.owner);
    const named = await create({ name: 'Elsewhere', organization_id: organization.id });
    assert.equal(named.statusCode, 201, named.body);
    assert.equal(named.json().organization, organization.id);

    const listed = (await get('/api/projects/')).json();
    assert.equal(listed.count, 3);
    const fetched = await get(`/api/projects/${project.id}/`);
    assert.equal(fetched.statusCode, 200);
    assert.deepEqual(fetched.json(), project);
  });

  it('validates the body', async () => {
    const blank = await create({ name: '   ' });
    assert.deepEqual(blank.json(), {
      type: 'validation_error',
      code: 'blank',
      detail: 'This field may not be blank.',
      attr: 'name',
    });
    const missing = await create({});
    assert.equal(missing.json().code, 'required');
    assert.equal(missing.json().attr, 'name');
    const long = await create({ name: 'x'.repeat(201) });
    assert.equal(long.json().code, 'max_length');
    const badOrg = await create({ name: 'x', organization_id: 'nope' });
    assert.equal(badOrg.statusCode, 400);
    assert.equal(badOrg.json().attr, 'organization_id');
    const unknownOrg = await create({ name: 'x', organization_id: crypto.randomUUID() });
    assert.equal(unknownOrg.statusCode, 400);
    assert.equal(unknownOrg.json().attr, 'organization_id');
  });

  it('creating needs admin of that organization and membership', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    const res = await create({ name: 'nope' }, member.headers);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, 'Your organization access level is insufficient.');
    const other = await makeTenant(ctx.deps.db);
    const foreign = await create({ name: 'nope', organization_id: other.organization.id });
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.json().detail, 'You do not have permission to perform this action.');
    const admin = await makeTenantMember(ctx.deps.db, tenant, 8);
    assert.equal((await create({ name: 'by admin' }, admin.headers)).statusCode, 201);
  });

  it('needs the project scopes', async () => {
    const key = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['project:read'] }));
    assert.equal((await get('/api/projects/', key)).statusCode, 200);
    assert.equal((await get(`/api/projects/${tenant.project.id}/`, key)).statusCode, 200);
    const res = await create({ name: 'x' }, key);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'project:write'");
    const none = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['person:read'] }));
    assert.equal((await get('/api/projects/', none)).json().detail, "API key missing required scope 'project:read'");
  });

  it('lists only within a key’s scoped organizations and scoped teams', async () => {
    const db = ctx.deps.db;
    const owner = tenant.owner;
    const second = await makeOrganization(db, owner);
    const secondProject = await makeProject(db, second);
    const byOrg = bearer(await makeKey(db, owner, { scopedOrganizations: [second.id] }));
    const orgIds = (await get('/api/projects/', byOrg)).json().results.map((p: { id: number }) => p.id);
    assert.deepEqual(orgIds, [secondProject.id]);
    const byTeam = bearer(await makeKey(db, owner, { scopedTeams: [tenant.project.id] }));
    const teamIds = (await get('/api/projects/', byTeam)).json().results.map((p: { id: number }) => p.id);
    assert.deepEqual(teamIds, [tenant.project.id]);
  });

  it('retrieves with the project access rules', async () => {
    const other = await makeTenant(ctx.deps.db);
    const foreign = await get(`/api/projects/${other.project.id}/`);
    assert.equal(foreign.statusCode, 403);
    assert.equal(foreign.json().detail, "You don't have access to the project.");
    assert.equal((await get('/api/projects/999999/')).statusCode, 404);
    assert.equal((await get('/api/projects/abc/')).statusCode, 404);
    const current = await get('/api/projects/@current/');
    assert.equal(current.statusCode, 200);
    assert.equal(current.json().id, tenant.project.id);
    // A member (not admin) reads projects.
    await makeMember(ctx.deps.db, other.organization, tenant.owner, 1);
    assert.equal((await get(`/api/projects/${other.project.id}/`)).statusCode, 200);
  });

  it('paginates', async () => {
    const res = await get('/api/projects/?limit=1');
    const body = res.json();
    assert.equal(body.results.length, 1);
    assert.ok(body.count > 1);
    assert.match(body.next, /^http:\/\/localhost(:\d+)?\/api\/projects\/\?limit=1&offset=1$/);
  });
});
