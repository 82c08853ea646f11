// Tenancy: a key of organization B can neither see nor change organization A's roles or
// memberships, by any path or id.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeMember, makeTenant, makeUser, type Tenant } from '../helpers/factories.ts';

const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
const NOT_MEMBER = {
  type: 'authentication_error',
  code: 'permission_denied',
  detail: 'You do not have permission to perform this action.',
  attr: null,
};

describe('roles isolation between organizations', () => {
  let ctx: TestContext;
  let a: Tenant;
  let b: Tenant;
  let roleA: string;
  let membershipA: string;
  let memberOfA: string;
  let memberOfB: string;

  before(async () => {
    ctx = await setupTestApp();
    a = await makeTenant(ctx.deps.db);
    b = await makeTenant(ctx.deps.db);
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/organizations/${a.organization.id}/roles/`,
      headers: a.headers,
      payload: { name: 'Secret' },
    });
    roleA = res.json().id;
    const userA = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, a.organization, userA);
    memberOfA = userA.uuid;
    const userB = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, b.organization, userB);
    memberOfB = userB.uuid;
    const added = await ctx.app.inject({
      method: 'POST',
      url: `/api/organizations/${a.organization.id}/roles/${roleA}/role_memberships/`,
      headers: a.headers,
      payload: { user_uuid: memberOfA },
    });
    assert.equal(added.statusCode, 201);
    membershipA = added.json().id;
  });
  after(() => ctx.close());

  async function roleAIsIntact() {
    const role = await ctx.app.inject({
      method: 'GET',
      url: `/api/organizations/${a.organization.id}/roles/${roleA}/`,
      headers: a.headers,
    });
    assert.equal(role.statusCode, 200);
    assert.equal(role.json().name, 'Secret');
    assert.equal(role.json().feature_flags_access_level, 37);
    assert.deepEqual(
      role.json().members.map((m: { id: string }) => m.id),
      [membershipA],
    );
  }

  it("cannot read or change another organization's role through its own organization's path", async () => {
    const base = `/api/organizations/${b.organization.id}/roles/`;
    const requests = [
      { method: 'GET' as const, url: `${base}${roleA}/` },
      { method: 'PATCH' as const, url: `${base}${roleA}/`, payload: { name: 'Hijacked' } },
      {
        method: 'PUT' as const,
        url: `${base}${roleA}/`,
        payload: { name: 'Hijacked', feature_flags_access_level: 21 },
      },
      { method: 'DELETE' as const, url: `${base}${roleA}/` },
      { method: 'GET' as const, url: `${base}${roleA}/role_memberships/` },
      { method: 'POST' as const, url: `${base}${roleA}/role_memberships/`, payload: { user_uuid: memberOfB } },
      { method: 'DELETE' as const, url: `${base}${roleA}/role_memberships/${membershipA}/` },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: b.headers });
      assert.equal(res.statusCode, 404, `${request.method} ${request.url}: ${res.body}`);
      assert.deepEqual(res.json(), NOT_FOUND);
    }
    const listed = await ctx.app.inject({ method: 'GET', url: base, headers: b.headers });
    assert.equal(listed.json().count, 0);
    await roleAIsIntact();
  });

  it("cannot use @current to reach another organization's role", async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/organizations/@current/roles/${roleA}/`,
      headers: b.headers,
    });
    assert.equal(res.statusCode, 404);
  });

  it("answers 403 to B's key on A's organization path, for every route", async () => {
    const base = `/api/organizations/${a.organization.id}/roles/`;
    const requests = [
      { method: 'GET' as const, url: base },
      { method: 'POST' as const, url: base, payload: { name: 'Planted' } },
      { method: 'GET' as const, url: `${base}${roleA}/` },
      { method: 'PATCH' as const, url: `${base}${roleA}/`, payload: { name: 'Hijacked' } },
      { method: 'PUT' as const, url: `${base}${roleA}/`, payload: { name: 'Hijacked' } },
      { method: 'DELETE' as const, url: `${base}${roleA}/` },
      { method: 'GET' as const, url: `${base}${roleA}/role_memberships/` },
      { method: 'POST' as const, url: `${base}${roleA}/role_memberships/`, payload: { user_uuid: memberOfB } },
      { method: 'DELETE' as const, url: `${base}${roleA}/role_memberships/${membershipA}/` },
    ];
    for (const request of requests) {
      const res = await ctx.app.inject({ ...request, headers: b.headers });
      assert.equal(res.statusCode, 403, `${request.method} ${request.url}: ${res.body}`);
      assert.deepEqual(res.json(), NOT_MEMBER);
    }
    const names = (await ctx.app.inject({ method: 'GET', url: base, headers: a.headers }))
      .json()
      .results.map((r: { name: string }) => r.name);
    assert.deepEqual(names, ['Secret']);
    await roleAIsIntact();
  });

  it("cannot add a member of another organization to one's own role", async () => {
    const own = await ctx.app.inject({
      method: 'POST',
      url: `/api/organizations/${b.organization.id}/roles/`,
      headers: b.headers,
      payload: { name: 'Mine' },
    });
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/organizations/${b.organization.id}/roles/${own.json().id}/role_memberships/`,
      headers: b.headers,
      payload: { user_uuid: memberOfA },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), {
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'User does not exist.',
      attr: null,
    });
  });

  it("cannot remove A's membership through B's own role", async () => {
    const own = await ctx.app.inject({
      method: 'POST',
      url: `/api/organizations/${b.organization.id}/roles/`,
      headers: b.headers,
      payload: { name: 'Other' },
    });
    const res = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/organizations/${b.organization.id}/roles/${own.json().id}/role_memberships/${membershipA}/`,
      headers: b.headers,
    });
    assert.equal(res.statusCode, 404);
    await roleAIsIntact();
  });

  it("does not count another organization's role names as duplicates", async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/organizations/${b.organization.id}/roles/`,
      headers: b.headers,
      payload: { name: 'SECRET' },
    });
    assert.equal(res.statusCode, 201, res.body);
  });
});
