import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertApiKey } from '../../src/modules/api-keys/api-keys.repository.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  bearer,
  makeKey,
  makeProject,
  makeTenant,
  makeTenantMember,
  makeUser,
  type Tenant,
} from '../helpers/factories.ts';

const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });

describe('authentication and authorization', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let members: string;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
    members = `/api/organizations/${tenant.organization.id}/members/`;
  });
  after(() => ctx.close());

  const get = (url: string, headers: Record<string, string> = tenant.headers) =>
    ctx.app.inject({ method: 'GET', url, headers });
  const keyWith = async (options: Parameters<typeof makeKey>[2]) =>
    bearer(await makeKey(ctx.deps.db, tenant.owner, options));

  it('no credentials: 401 not_authenticated', async () => {
    const res = await get('/api/organizations/', {});
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), {
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
    assert.equal(
      (await get('/api/organizations/', { authorization: 'Basic dXNlcjpwYXNz' })).json().code,
      'not_authenticated',
    );
  });

  it('a bad key: 401 authentication_failed', async () => {
    const res = await get('/api/organizations/', bearer('phx_not_a_real_key'));
    assert.equal(res.statusCode, 401);
    assert.deepEqual(res.json(), {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
  });

  it('authenticates before validating the body', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: members, payload: { level: 'nope' } });
    assert.equal(res.statusCode, 401);
  });

  it('matches the Bearer scheme case-insensitively and tolerates extra spaces', async () => {
    for (const scheme of ['bearer', 'BEARER', 'bEaReR']) {
      const res = await get('/api/organizations/', { authorization: `${scheme}   ${tenant.key}  ` });
      assert.equal(res.statusCode, 200, scheme);
    }
  });

  it('a missing scope: 403 naming the first missing scope', async () => {
    const headers = await keyWith({ scopes: ['person:read'] });
    const res = await get('/api/organizations/', headers);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), denied("API key missing required scope 'organization:read'"));
    const post = await ctx.app.inject({ method: 'POST', url: members, headers, payload: { email: 'a@example.com' } });
    assert.deepEqual(post.json(), denied("API key missing required scope 'organization_member:write'"));
  });

  it('write implies read; read does not imply write; * grants all', async () => {
    const write = await keyWith({ scopes: ['organization_member:write'] });
    assert.equal((await get(members, write)).statusCode, 200);
    const read = await keyWith({ scopes: ['organization:read'] });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/organizations/',
      headers: read,
      payload: { name: 'x' },
    });
    assert.deepEqual(res.json(), denied("API key missing required scope 'organization:write'"));
    const star = await keyWith({ scopes: ['*'] });
    assert.equal((await get(members, star)).statusCode, 200);
    assert.equal((await get('/api/projects/', star)).statusCode, 200);
  });

  it('scoped_organizations: 403 outside them, 200 inside', async () => {
    const headers = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopedOrganizations: [other.organization.id] }));
    const res = await get(members, headers);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(
      res.json(),
      denied(`API key does not have access to the requested organization: ID ${tenant.organization.id}.`),
    );
    const project = await get(`/api/projects/${tenant.project.id}/`, headers);
    assert.deepEqual(
      project.json(),
      denied(`API key does not have access to the requested organization: ID ${tenant.organization.id}.`),
    );
    const inside = await keyWith({ scopedOrganizations: [tenant.organization.id] });
    assert.equal((await get(members, inside)).statusCode, 200);
  });

  it('scoped_teams: 403 on organization endpoints and on other projects', async () => {
    const second = await makeProject(ctx.deps.db, tenant.organization);
    const headers = await keyWith({ scopedTeams: [tenant.project.id] });
    const org = await get(members, headers);
    assert.equal(org.statusCode, 403);
    assert.deepEqual(
      org.json(),
      denied('API keys with scoped projects are only supported on project-based endpoints.'),
    );
    const project = await get(`/api/projects/${second.id}/`, headers);
    assert.deepEqual(project.json(), denied(`API key does not have access to the requested project: ID ${second.id}.`));
    assert.equal((await get(`/api/projects/${tenant.project.id}/`, headers)).statusCode, 200);
  });

  it('organizations: another one is 403, an unknown or malformed one 404', async () => {
    const res = await get(`/api/organizations/${other.organization.id}/members/`);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), denied('You do not have permission to perform this action.'));
    assert.equal((await get(`/api/organizations/${other.organization.id}/`)).statusCode, 403);
    for (const id of [crypto.randomUUID(), 'not-a-uuid', '123']) {
      const unknown = await get(`/api/organizations/${id}/members/`);
      assert.equal(unknown.statusCode, 404, id);
      assert.deepEqual(unknown.json(), {
        type: 'invalid_request',
        code: 'not_found',
        detail: 'Not found.',
        attr: null,
      });
    }
  });

  it('an unknown organization is 404 even before the scope check', async () => {
    const headers = await keyWith({ scopes: ['person:read'] });
    assert.equal((await get(`/api/organizations/${crypto.randomUUID()}/members/`, headers)).statusCode, 404);
  });

  it('projects: another organization’s is 403, an unknown one 404', async () => {
    const res = await get(`/api/projects/${other.project.id}/`);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), denied("You don't have access to the project."));
    assert.equal((await get('/api/projects/2147483000/')).statusCode, 404);
    assert.equal((await get('/api/projects/not-a-number/')).statusCode, 404);
  });

  it('a member may read but not write where admins must', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    assert.equal((await get(members, member.headers)).statusCode, 200);
    const res = await ctx.app.inject({
      method: 'POST',
      url: members,
      headers: member.headers,
      payload: { email: 'b@example.com' },
    });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), denied('Your organization access level is insufficient.'));
    const admin = await makeTenantMember(ctx.deps.db, tenant, 8);
    const ok = await ctx.app.inject({
      method: 'POST',
      url: members,
      headers: admin.headers,
      payload: { email: 'b@example.com' },
    });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('an inactive user’s key: 401', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 8);
    await ctx.deps.db.updateTable('users').set({ is_active: false }).where('id', '=', member.user.id).execute();
    const res = await get(members, member.headers);
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'authentication_failed');
  });

  it('sets last_used_at, rewriting it at most once an hour', async () => {
    const user = await makeUser(ctx.deps.db);
    const { row, value } = await insertApiKey(
      ctx.deps.db,
      { userId: user.id, label: 'clock', scopes: ['*'] },
      new Date(),
    );
    const lastUsed = async () =>
      (
        await ctx.deps.db
          .selectFrom('personal_api_keys')
          .select('last_used_at')
          .where('id', '=', row.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    assert.equal(await lastUsed(), null);

    ctx.clock.set('2026-03-01T10:00:00.000Z');
    assert.equal((await get('/api/organizations/', bearer(value))).statusCode, 200);
    assert.equal((await lastUsed())?.toISOString(), '2026-03-01T10:00:00.000Z');

    ctx.clock.set('2026-03-01T10:59:00.000Z');
    await get('/api/organizations/', bearer(value));
    assert.equal((await lastUsed())?.toISOString(), '2026-03-01T10:00:00.000Z');

    ctx.clock.set('2026-03-01T11:00:01.000Z');
    await get('/api/organizations/', bearer(value));
    assert.equal((await lastUsed())?.toISOString(), '2026-03-01T11:00:01.000Z');

    const shown = (await get(`/api/personal_api_keys/${row.id}/`, bearer(value))).json();
    assert.equal(shown.last_used_at, '2026-03-01T11:00:01.000Z');
  });
});
