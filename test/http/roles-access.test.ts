// Who may read and write roles: membership, level, scopes and key restrictions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeKey, makeTenant, makeTenantMember, bearer, type Tenant } from '../helpers/factories.ts';

describe('roles access', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let base: string;
  let roleId: string;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    base = `/api/organizations/${tenant.organization.id}/roles/`;
    roleId = (
      await ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name: 'Existing' } })
    ).json().id;
  });
  after(() => ctx.close());

  const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });

  it('answers 401 without a key and with a bad key', async () => {
    let res = await ctx.app.inject({ method: 'GET', url: base });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'not_authenticated');
    res = await ctx.app.inject({ method: 'GET', url: base, headers: bearer('phx_nope') });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'authentication_failed');
  });

  it('lets a member read but not write', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    assert.equal((await ctx.app.inject({ method: 'GET', url: base, headers: member.headers })).statusCode, 200);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: `${base}${roleId}/`, headers: member.headers })).statusCode,
      200,
    );
    const writes = [
      { method: 'POST' as const, url: base, payload: { name: 'By member' } },
      { method: 'PATCH' as const, url: `${base}${roleId}/`, payload: { name: 'By member' } },
      { method: 'PUT' as const, url: `${base}${roleId}/`, payload: { name: 'By member' } },
      { method: 'DELETE' as const, url: `${base}${roleId}/` },
    ];
    for (const write of writes) {
      const res = await ctx.app.inject({ ...write, headers: member.headers });
      assert.equal(res.statusCode, 403, `${write.method}: ${res.body}`);
      assert.deepEqual(res.json(), denied('Your organization access level is insufficient.'));
    }
    const role = await ctx.app.inject({ method: 'GET', url: `${base}${roleId}/`, headers: tenant.headers });
    assert.equal(role.json().name, 'Existing');
  });

  it('lets an admin write', async () => {
    const admin = await makeTenantMember(ctx.deps.db, tenant, 8);
    const res = await ctx.app.inject({
      method: 'POST',
      url: base,
      headers: admin.headers,
      payload: { name: 'By admin' },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().created_by.id, admin.user.id);
  });

  it('requires organization:write to write and accepts it for reads', async () => {
    const readOnly = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['organization:read'] });
    let res = await ctx.app.inject({
      method: 'POST',
      url: base,
      headers: bearer(readOnly),
      payload: { name: 'Read only' },
    });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), denied("API key missing required scope 'organization:write'"));
    res = await ctx.app.inject({ method: 'DELETE', url: `${base}${roleId}/`, headers: bearer(readOnly) });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'organization:write'");
    assert.equal((await ctx.app.inject({ method: 'GET', url: base, headers: bearer(readOnly) })).statusCode, 200);

    const writeOnly = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['organization:write'] });
    assert.equal((await ctx.app.inject({ method: 'GET', url: base, headers: bearer(writeOnly) })).statusCode, 200);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: `${base}${roleId}/`, headers: bearer(writeOnly) })).statusCode,
      200,
    );
    res = await ctx.app.inject({
      method: 'POST',
      url: base,
      headers: bearer(writeOnly),
      payload: { name: 'Write scope' },
    });
    assert.equal(res.statusCode, 201, res.body);
  });

  it('refuses a key without organization scopes', async () => {
    const personOnly = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['person:read'] });
    const res = await ctx.app.inject({ method: 'GET', url: base, headers: bearer(personOnly) });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), denied("API key missing required scope 'organization:read'"));
  });

  it('refuses a key scoped to another organization or to projects', async () => {
    const other = await makeTenant(ctx.deps.db);
    const scopedElsewhere = await makeKey(ctx.deps.db, tenant.owner, { scopedOrganizations: [other.organization.id] });
    let res = await ctx.app.inject({ method: 'GET', url: base, headers: bearer(scopedElsewhere) });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(
      res.json(),
      denied(`API key does not have access to the requested organization: ID ${tenant.organization.id}.`),
    );
    const scopedTeams = await makeKey(ctx.deps.db, tenant.owner, { scopedTeams: [tenant.project.id] });
    res = await ctx.app.inject({ method: 'GET', url: base, headers: bearer(scopedTeams) });
    assert.equal(res.statusCode, 403);
    assert.deepEqual(
      res.json(),
      denied('API keys with scoped projects are only supported on project-based endpoints.'),
    );
    const scopedHere = await makeKey(ctx.deps.db, tenant.owner, { scopedOrganizations: [tenant.organization.id] });
    assert.equal((await ctx.app.inject({ method: 'GET', url: base, headers: bearer(scopedHere) })).statusCode, 200);
  });

  it('answers 403 to a non-member, for reads and writes', async () => {
    const outsider = await makeTenant(ctx.deps.db);
    for (const request of [
      { method: 'GET' as const, url: base },
      { method: 'GET' as const, url: `${base}${roleId}/` },
      { method: 'POST' as const, url: base, payload: { name: 'Intruder' } },
    ]) {
      const res = await ctx.app.inject({ ...request, headers: outsider.headers });
      assert.equal(res.statusCode, 403, res.body);
      assert.deepEqual(res.json(), denied('You do not have permission to perform this action.'));
    }
  });

  it('checks access before validating the body or the ids', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    let res = await ctx.app.inject({
      method: 'POST',
      url: base,
      headers: member.headers,
      payload: { name: '   ', feature_flags_access_level: 5 },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, 'Your organization access level is insufficient.');
    res = await ctx.app.inject({ method: 'GET', url: `${base}not-a-uuid/` });
    assert.equal(res.statusCode, 401);
    res = await ctx.app.inject({
      method: 'POST',
      url: `${base}${roleId}/role_memberships/`,
      headers: member.headers,
      payload: { user_uuid: 'nope' },
    });
    assert.equal(res.statusCode, 403);
  });
});
