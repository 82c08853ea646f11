import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  bearer,
  makeKey,
  makeMember,
  makeTenant,
  makeTenantMember,
  makeUser,
  type Tenant,
} from '../helpers/factories.ts';

const ERROR = (code: string, detail: string, attr: string | null) => ({ type: 'validation_error', code, detail, attr });
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };

describe('role memberships', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let roles: string;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    roles = `/api/organizations/${tenant.organization.id}/roles/`;
  });
  after(() => ctx.close());

  async function makeRole(name = `Role ${crypto.randomUUID().slice(0, 8)}`): Promise<string> {
    const res = await ctx.app.inject({ method: 'POST', url: roles, headers: tenant.headers, payload: { name } });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().id;
  }
  const membershipsUrl = (roleId: string) => `${roles}${roleId}/role_memberships/`;
  const add = (roleId: string, payload: unknown, headers = tenant.headers) =>
    ctx.app.inject({ method: 'POST', url: membershipsUrl(roleId), headers, payload: payload as object });

  it('adds an organization member to a role with the Role membership object', async () => {
    const roleId = await makeRole();
    const user = await makeUser(ctx.deps.db, { first_name: 'Ada', last_name: 'Lovelace' });
    const member = await makeMember(ctx.deps.db, tenant.organization, user, 1);
    const res = await add(roleId, { user_uuid: user.uuid });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'id',
      'joined_at',
      'organization_member',
      'role_id',
      'updated_at',
      'user',
    ]);
    assert.match(body.id, /^[0-9a-f-]{36}$/);
    assert.equal(body.role_id, roleId);
    assert.equal(body.user.uuid, user.uuid);
    assert.equal(body.user.id, user.id);
    assert.equal(body.user.first_name, 'Ada');
    assert.equal(body.user.last_name, 'Lovelace');
    assert.equal(body.organization_member.id, member.id);
    assert.equal(body.organization_member.level, 1);
    assert.equal(body.organization_member.user.uuid, user.uuid);
    assert.equal(body.organization_member.joined_at, member.joined_at.toISOString());
    assert.equal(body.organization_member.is_2fa_enabled, false);
    assert.equal(body.organization_member.has_social_auth, false);
    assert.match(body.joined_at, /Z$/);
    assert.match(body.updated_at, /Z$/);
    assert.equal('user_uuid' in body, false);

    const role = await ctx.app.inject({ method: 'GET', url: `${roles}${roleId}/`, headers: tenant.headers });
    assert.deepEqual(role.json().members, [body]);
    const viaCurrent = await ctx.app.inject({
      method: 'GET',
      url: `/api/organizations/@current/roles/${roleId}/role_memberships`,
      headers: tenant.headers,
    });
    assert.equal(viaCurrent.statusCode, 200, viaCurrent.body);
    assert.deepEqual(viaCurrent.json().results, [body]);
  });

  it('lists memberships in joined order, paginated, without user_uuid', async () => {
    const roleId = await makeRole();
    ctx.clock.set('2026-03-01T00:00:00.000Z');
    const users = [];
    for (let i = 0; i < 3; i++) {
      const user = await makeUser(ctx.deps.db);
      await makeMember(ctx.deps.db, tenant.organization, user);
      assert.equal((await add(roleId, { user_uuid: user.uuid })).statusCode, 201);
      users.push(user);
      ctx.clock.advance(1000);
    }
    let res = await ctx.app.inject({ method: 'GET', url: membershipsUrl(roleId), headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    let body = res.json();
    assert.equal(body.count, 3);
    assert.equal(body.next, null);
    assert.deepEqual(
      body.results.map((m: { user: { uuid: string } }) => m.user.uuid),
      users.map((u) => u.uuid),
    );
    assert.equal(body.results[0].joined_at, '2026-03-01T00:00:00.000Z');
    assert.ok(body.results.every((m: object) => !('user_uuid' in m)));

    res = await ctx.app.inject({
      method: 'GET',
      url: `${membershipsUrl(roleId)}?limit=1&offset=1`,
      headers: tenant.headers,
    });
    body = res.json();
    assert.equal(body.count, 3);
    assert.deepEqual(
      body.results.map((m: { user: { uuid: string } }) => m.user.uuid),
      [users[1].uuid],
    );
    assert.equal(body.next, `http://localhost:80${membershipsUrl(roleId)}?limit=1&offset=2`);
    assert.equal(body.previous, `http://localhost:80${membershipsUrl(roleId)}?limit=1&offset=0`);

    const role = await ctx.app.inject({ method: 'GET', url: `${roles}${roleId}/`, headers: tenant.headers });
    assert.deepEqual(
      role.json().members.map((m: { user: { uuid: string } }) => m.user.uuid),
      users.map((u) => u.uuid),
    );
  });

  it('validates user_uuid', async () => {
    const roleId = await makeRole();
    let res = await add(roleId, {});
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('required', 'This field is required.', 'user_uuid'));
    res = await ctx.app.inject({ method: 'POST', url: membershipsUrl(roleId), headers: tenant.headers });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('required', 'This field is required.', 'user_uuid'));
    for (const value of ['not-a-uuid', '1234', 42]) {
      res = await add(roleId, { user_uuid: value });
      assert.equal(res.statusCode, 400, String(value));
      assert.deepEqual(res.json(), ERROR('invalid_input', 'Must be a valid UUID.', 'user_uuid'));
    }
  });

  it('rejects a user who is not an active member of the organization', async () => {
    const roleId = await makeRole();
    const stranger = await makeUser(ctx.deps.db);
    const inactive = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, inactive);
    await ctx.deps.db.updateTable('users').set({ is_active: false }).where('id', '=', inactive.id).execute();
    const elsewhere = await makeTenant(ctx.deps.db);
    for (const uuid of [crypto.randomUUID(), stranger.uuid, inactive.uuid, elsewhere.owner.uuid]) {
      const res = await add(roleId, { user_uuid: uuid });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), ERROR('invalid_input', 'User does not exist.', null));
    }
    const list = await ctx.app.inject({ method: 'GET', url: membershipsUrl(roleId), headers: tenant.headers });
    assert.equal(list.json().count, 0);
  });

  it('rejects a user already in the role, and lets a user join several roles', async () => {
    const first = await makeRole();
    const second = await makeRole();
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    assert.equal((await add(first, { user_uuid: user.uuid })).statusCode, 201);
    const again = await add(first, { user_uuid: user.uuid.toUpperCase() });
    assert.equal(again.statusCode, 400);
    assert.deepEqual(again.json(), ERROR('invalid_input', 'User is already part of the role.', null));
    assert.equal((await add(second, { user_uuid: user.uuid })).statusCode, 201);
  });

  it('answers 404 on every membership route for an unknown or malformed role id', async () => {
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    for (const roleId of [crypto.randomUUID(), 'not-a-uuid']) {
      const requests = [
        { method: 'GET' as const, url: membershipsUrl(roleId) },
        { method: 'POST' as const, url: membershipsUrl(roleId), payload: { user_uuid: user.uuid } },
        { method: 'DELETE' as const, url: `${membershipsUrl(roleId)}${crypto.randomUUID()}/` },
      ];
      for (const request of requests) {
        const res = await ctx.app.inject({ ...request, headers: tenant.headers });
        assert.equal(res.statusCode, 404, `${request.method} ${request.url}: ${res.body}`);
        assert.deepEqual(res.json(), NOT_FOUND);
      }
    }
  });

  it('removes a membership with 204 and no body; the user and role stay', async () => {
    const roleId = await makeRole();
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    const membership = (await add(roleId, { user_uuid: user.uuid })).json();
    const res = await ctx.app.inject({
      method: 'DELETE',
      url: `${membershipsUrl(roleId)}${membership.id}/`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const list = await ctx.app.inject({ method: 'GET', url: membershipsUrl(roleId), headers: tenant.headers });
    assert.equal(list.json().count, 0);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: `${roles}${roleId}/`, headers: tenant.headers })).statusCode,
      200,
    );
    const again = await ctx.app.inject({
      method: 'DELETE',
      url: `${membershipsUrl(roleId)}${membership.id}/`,
      headers: tenant.headers,
    });
    assert.equal(again.statusCode, 404);
    const malformed = await ctx.app.inject({
      method: 'DELETE',
      url: `${membershipsUrl(roleId)}nope/`,
      headers: tenant.headers,
    });
    assert.equal(malformed.statusCode, 404);
  });

  it('answers 404 when deleting a membership through another role of the organization', async () => {
    const roleA = await makeRole();
    const roleB = await makeRole();
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    const membership = (await add(roleA, { user_uuid: user.uuid })).json();
    const res = await ctx.app.inject({
      method: 'DELETE',
      url: `${membershipsUrl(roleB)}${membership.id}/`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 404);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: membershipsUrl(roleA), headers: tenant.headers })).json().count,
      1,
    );
  });

  it('answers 405 to PATCH, PUT and GET on a membership', async () => {
    const roleId = await makeRole();
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    const membership = (await add(roleId, { user_uuid: user.uuid })).json();
    for (const method of ['PATCH', 'PUT', 'GET'] as const) {
      const res = await ctx.app.inject({
        method,
        url: `${membershipsUrl(roleId)}${membership.id}/`,
        headers: tenant.headers,
        payload: method === 'GET' ? undefined : { user_uuid: user.uuid },
      });
      assert.equal(res.statusCode, 405, method);
      assert.deepEqual(res.json(), {
        type: 'invalid_request',
        code: 'method_not_allowed',
        detail: `Method "${method}" not allowed.`,
        attr: null,
      });
    }
  });

  it('deletes the memberships with their role', async () => {
    const roleId = await makeRole();
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    assert.equal((await add(roleId, { user_uuid: user.uuid })).statusCode, 201);
    assert.equal(
      (await ctx.app.inject({ method: 'DELETE', url: `${roles}${roleId}/`, headers: tenant.headers })).statusCode,
      204,
    );
    const left = await ctx.deps.db.selectFrom('role_memberships').selectAll().where('role_id', '=', roleId).execute();
    assert.deepEqual(left, []);
    const list = await ctx.app.inject({ method: 'GET', url: membershipsUrl(roleId), headers: tenant.headers });
    assert.equal(list.statusCode, 404);
  });

  it('drops the role memberships of a user who leaves the organization', async () => {
    const roleA = await makeRole();
    const roleB = await makeRole();
    const leaver = await makeUser(ctx.deps.db);
    const stayer = await makeUser(ctx.deps.db);
    const leaverMembership = await makeMember(ctx.deps.db, tenant.organization, leaver);
    await makeMember(ctx.deps.db, tenant.organization, stayer);
    for (const roleId of [roleA, roleB]) {
      assert.equal((await add(roleId, { user_uuid: leaver.uuid })).statusCode, 201);
      assert.equal((await add(roleId, { user_uuid: stayer.uuid })).statusCode, 201);
    }
    await ctx.deps.db
      .deleteFrom('organization_memberships')
      .where('organization_id', '=', tenant.organization.id)
      .where('id', '=', leaverMembership.id)
      .execute();
    for (const roleId of [roleA, roleB]) {
      const list = await ctx.app.inject({ method: 'GET', url: membershipsUrl(roleId), headers: tenant.headers });
      assert.equal(list.json().count, 1);
      assert.deepEqual(
        list.json().results.map((m: { user: { uuid: string } }) => m.user.uuid),
        [stayer.uuid],
      );
    }
  });

  it('logs member_added and member_removed against the role', async () => {
    const roleId = await makeRole('Logged role');
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    const membership = (await add(roleId, { user_uuid: user.uuid })).json();
    await ctx.app.inject({
      method: 'DELETE',
      url: `${membershipsUrl(roleId)}${membership.id}/`,
      headers: tenant.headers,
    });
    const log = await ctx.deps.db
      .selectFrom('activity_log')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('scope', '=', 'Role')
      .where('item_id', '=', roleId)
      .orderBy('created_at')
      .execute();
    const entries = log.filter((entry) => entry.activity !== 'created');
    assert.deepEqual(entries.map((entry) => entry.activity).sort(), ['member_added', 'member_removed']);
    for (const entry of entries) {
      assert.equal(entry.user_id, tenant.owner.id);
      assert.equal(entry.organization_id, tenant.organization.id);
      assert.equal(entry.team_id, null);
      assert.equal((entry.detail as { name: string }).name, 'Logged role');
    }
    const added = entries.find((entry) => entry.activity === 'member_added');
    assert.deepEqual((added?.detail as { changes: unknown }).changes, [
      {
        type: 'Role',
        action: 'created',
        field: 'members',
        before: null,
        after: { user_uuid: user.uuid, email: user.email },
      },
    ]);
  });
});

describe('role memberships access', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let url: string;
  let roleId: string;
  let membershipId: string;
  let candidateUuid: string;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    const roles = `/api/organizations/${tenant.organization.id}/roles/`;
    roleId = (
      await ctx.app.inject({ method: 'POST', url: roles, headers: tenant.headers, payload: { name: 'Guarded' } })
    ).json().id;
    url = `${roles}${roleId}/role_memberships/`;
    const user = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, user);
    membershipId = (
      await ctx.app.inject({ method: 'POST', url, headers: tenant.headers, payload: { user_uuid: user.uuid } })
    ).json().id;
    const candidate = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, candidate);
    candidateUuid = candidate.uuid;
  });
  after(() => ctx.close());

  it('lets a member read but not add or remove', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: member.headers })).statusCode, 200);
    for (const request of [
      { method: 'POST' as const, url, payload: { user_uuid: candidateUuid } },
      { method: 'DELETE' as const, url: `${url}${membershipId}/` },
    ]) {
      const res = await ctx.app.inject({ ...request, headers: member.headers });
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: 'Your organization access level is insufficient.',
        attr: null,
      });
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: tenant.headers })).json().count, 1);
  });

  it('requires organization:write to add, accepts it to list', async () => {
    const readOnly = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['organization:read'] }));
    let res = await ctx.app.inject({ method: 'POST', url, headers: readOnly, payload: { user_uuid: candidateUuid } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'organization:write'");
    res = await ctx.app.inject({ method: 'DELETE', url: `${url}${membershipId}/`, headers: readOnly });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'organization:write'");
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: readOnly })).statusCode, 200);
    const writeOnly = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['organization:write'] }));
    assert.equal((await ctx.app.inject({ method: 'GET', url, headers: writeOnly })).statusCode, 200);
  });

  it('lets an admin add and remove', async () => {
    const admin = await makeTenantMember(ctx.deps.db, tenant, 8, ['organization:write']);
    const res = await ctx.app.inject({
      method: 'POST',
      url,
      headers: admin.headers,
      payload: { user_uuid: candidateUuid },
    });
    assert.equal(res.statusCode, 201, res.body);
    const removed = await ctx.app.inject({ method: 'DELETE', url: `${url}${res.json().id}/`, headers: admin.headers });
    assert.equal(removed.statusCode, 204);
  });
});
