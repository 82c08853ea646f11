import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  bearer,
  makeKey,
  makeOrganization,
  makeTenant,
  makeTenantMember,
  makeUser,
  type Tenant,
} from '../helpers/factories.ts';

describe('organization members', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let base: string;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    base = `/api/organizations/${tenant.organization.id}/members/`;
  });
  after(() => ctx.close());

  const add = (body: unknown, headers = tenant.headers) =>
    ctx.app.inject({ method: 'POST', url: base, headers, payload: body as object });

  it('lists members in joined order with the Organization member shape', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: base, headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.count, 1);
    assert.equal(body.previous, null);
    const [member] = body.results;
    assert.equal(member.id, tenant.membership.id);
    assert.equal(member.level, 15);
    assert.equal(member.user.uuid, tenant.owner.uuid);
    assert.deepEqual(Object.keys(member).sort(), [
      'has_social_auth',
      'id',
      'is_2fa_enabled',
      'joined_at',
      'level',
      'updated_at',
      'user',
    ]);
    assert.match(member.joined_at, /Z$/);
  });

  it('adds a new user as a member (201), then the same e-mail again is 400 unique', async () => {
    const email = `new-${crypto.randomUUID()}@example.com`;
    const res = await add({ email, first_name: 'Ada', last_name: 'Lovelace', level: 8, unknown_field: true });
    assert.equal(res.statusCode, 201, res.body);
    const member = res.json();
    assert.equal(member.level, 8);
    assert.equal(member.user.email, email);
    assert.equal(member.user.first_name, 'Ada');
    assert.equal(member.user.last_name, 'Lovelace');

    const again = await add({ email: email.toUpperCase() });
    assert.equal(again.statusCode, 400);
    assert.deepEqual(again.json(), {
      type: 'validation_error',
      code: 'unique',
      detail: 'This user is already a member of the organization.',
      attr: 'email',
    });
  });

  it('adds an existing user, defaulting to level 1', async () => {
    const user = await makeUser(ctx.deps.db);
    const res = await add({ email: user.email });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().level, 1);
    assert.equal(res.json().user.id, user.id);
  });

  it('rejects a bad level, a missing or malformed e-mail', async () => {
    const level = await add({ email: 'x@example.com', level: 5 });
    assert.equal(level.statusCode, 400);
    assert.deepEqual(level.json(), {
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"5" is not a valid choice. Choose 1 (member), 8 (admin) or 15 (owner).',
      attr: 'level',
    });
    const missing = await add({ level: 1 });
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json(), {
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'email',
    });
    const malformed = await add({ email: 'not an email' });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().attr, 'email');
  });

  it('a level that is not one of the choices is never coerced into one (true, null, [15], "8.0")', async () => {
    const target = await makeTenantMember(ctx.deps.db, tenant, 8);
    for (const level of [true, null, [15], '8.0']) {
      const created = await add({ email: `coerced-${crypto.randomUUID()}@example.com`, level });
      assert.equal(created.statusCode, 400, `${JSON.stringify(level)}: ${created.body}`);
      assert.equal(created.json().code, 'invalid_choice');
      assert.equal(created.json().attr, 'level');
      const patched = await ctx.app.inject({
        method: 'PATCH',
        url: `${base}${target.user.uuid}/`,
        headers: tenant.headers,
        payload: { level },
      });
      assert.equal(patched.statusCode, 400, `${JSON.stringify(level)}: ${patched.body}`);
      assert.deepEqual(patched.json(), {
        type: 'validation_error',
        code: 'invalid_choice',
        detail: `"${typeof level === 'object' ? JSON.stringify(level) : String(level)}" is not a valid choice. Choose 1 (member), 8 (admin) or 15 (owner).`,
        attr: 'level',
      });
    }
    const text = await add({ email: `text-${crypto.randomUUID()}@example.com`, level: '8' });
    assert.equal(text.statusCode, 201, text.body);
    assert.equal(text.json().level, 8);
    const stored = await ctx.deps.db
      .selectFrom('organization_memberships')
      .select('level')
      .where('id', '=', target.membership.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.level, 8);
  });

  it('orders members by joined_at and paginates', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `${base}?limit=1&offset=1`, headers: tenant.headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.ok(body.count >= 3);
    assert.equal(body.results.length, 1);
    assert.match(body.previous, /limit=1&offset=0/);
    const all = (await ctx.app.inject({ method: 'GET', url: base, headers: tenant.headers })).json().results;
    const joined = all.map((m: { joined_at: string }) => m.joined_at);
    assert.deepEqual(joined, [...joined].sort());
    assert.equal(all[0].id, tenant.membership.id);
  });

  it('a member cannot add, change or remove members; reading is fine', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    const insufficient = {
      type: 'authentication_error',
      code: 'permission_denied',
      detail: 'Your organization access level is insufficient.',
      attr: null,
    };
    const res = await add({ email: 'someone@example.com' }, member.headers);
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), insufficient);
    const patch = await ctx.app.inject({
      method: 'PATCH',
      url: `${base}${tenant.owner.uuid}/`,
      headers: member.headers,
      payload: { level: 1 },
    });
    assert.deepEqual(patch.json(), insufficient);
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `${base}${tenant.owner.uuid}/`,
      headers: member.headers,
    });
    assert.deepEqual(del.json(), insufficient);
    const list = await ctx.app.inject({ method: 'GET', url: base, headers: member.headers });
    assert.equal(list.statusCode, 200);
  });

  it('needs the organization_member scopes', async () => {
    const key = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['organization:write'] });
    const res = await ctx.app.inject({ method: 'GET', url: base, headers: bearer(key) });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'organization_member:read'");
    const readOnly = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['organization_member:read'] });
    assert.equal((await ctx.app.inject({ method: 'GET', url: base, headers: bearer(readOnly) })).statusCode, 200);
    const write = await add({ email: 'scoped@example.com' }, bearer(readOnly));
    assert.equal(write.json().detail, "API key missing required scope 'organization_member:write'");
  });

  it('changes a level; owners only by owners; never one’s own', async () => {
    const admin = await makeTenantMember(ctx.deps.db, tenant, 8);
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    const patch = (uuid: string, level: unknown, headers = tenant.headers) =>
      ctx.app.inject({ method: 'PATCH', url: `${base}${uuid}/`, headers, payload: { level } });

    const promoted = await patch(member.user.uuid, 8, admin.headers);
    assert.equal(promoted.statusCode, 200, promoted.body);
    assert.equal(promoted.json().level, 8);

    const toOwner = await patch(member.user.uuid, 15, admin.headers);
    assert.equal(toOwner.statusCode, 403);
    assert.equal(toOwner.json().detail, 'Your organization access level is insufficient.');
    const demoteOwner = await patch(tenant.owner.uuid, 1, admin.headers);
    assert.equal(demoteOwner.statusCode, 403);
    assert.equal(demoteOwner.json().detail, 'Your organization access level is insufficient.');

    const self = await patch(tenant.owner.uuid, 8);
    assert.equal(self.statusCode, 403);
    assert.equal(self.json().detail, "You can't change your own access level.");

    const byOwner = await patch(member.user.uuid, 15);
    assert.equal(byOwner.statusCode, 200);
    assert.equal(byOwner.json().level, 15);
    const demoted = await patch(member.user.uuid, 8);
    assert.equal(demoted.statusCode, 200);
    assert.equal(demoted.json().level, 8);

    const bad = await patch(member.user.uuid, 3);
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_choice');
    assert.equal(bad.json().attr, 'level');
    const missing = await ctx.app.inject({
      method: 'PATCH',
      url: `${base}${member.user.uuid}/`,
      headers: tenant.headers,
      payload: {},
    });
    assert.equal(missing.json().code, 'required');
    assert.equal(missing.json().attr, 'level');
  });

  it('answers 404 for an unknown, malformed or foreign user uuid', async () => {
    const stranger = await makeUser(ctx.deps.db);
    for (const uuid of [crypto.randomUUID(), 'not-a-uuid', stranger.uuid]) {
      const res = await ctx.app.inject({
        method: 'PATCH',
        url: `${base}${uuid}/`,
        headers: tenant.headers,
        payload: { level: 1 },
      });
      assert.equal(res.statusCode, 404, uuid);
      const del = await ctx.app.inject({ method: 'DELETE', url: `${base}${uuid}/`, headers: tenant.headers });
      assert.equal(del.statusCode, 404, uuid);
    }
  });

  it('removes a member with their role memberships of that organization (204)', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    const db = ctx.deps.db;
    const roleId = crypto.randomUUID();
    const now = new Date();
    await db
      .insertInto('roles')
      .values({
        organization_id: tenant.organization.id,
        id: roleId,
        name: `role ${roleId}`,
        created_at: now,
        created_by_id: tenant.owner.id,
      })
      .execute();
    await db
      .insertInto('role_memberships')
      .values({
        organization_id: tenant.organization.id,
        id: crypto.randomUUID(),
        role_id: roleId,
        organization_member_id: member.membership.id,
        user_id: member.user.id,
        joined_at: now,
        updated_at: now,
      })
      .execute();

    const res = await ctx.app.inject({ method: 'DELETE', url: `${base}${member.user.uuid}/`, headers: tenant.headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const left = await db.selectFrom('role_memberships').selectAll().where('role_id', '=', roleId).execute();
    assert.equal(left.length, 0);
    assert.ok(await db.selectFrom('roles').selectAll().where('id', '=', roleId).executeTakeFirst(), 'the role stays');
    assert.ok(
      await db.selectFrom('users').selectAll().where('id', '=', member.user.id).executeTakeFirst(),
      'the user stays',
    );
    const list = (await ctx.app.inject({ method: 'GET', url: base, headers: tenant.headers })).json();
    assert.ok(!list.results.some((m: { user: { uuid: string } }) => m.user.uuid === member.user.uuid));
  });

  it('an admin cannot remove an owner; the last owner cannot be removed', async () => {
    const admin = await makeTenantMember(ctx.deps.db, tenant, 8);
    const byAdmin = await ctx.app.inject({
      method: 'DELETE',
      url: `${base}${tenant.owner.uuid}/`,
      headers: admin.headers,
    });
    assert.equal(byAdmin.statusCode, 403);

    const owner = await makeUser(ctx.deps.db);
    const organization = await makeOrganization(ctx.deps.db, owner);
    const headers = bearer(await makeKey(ctx.deps.db, owner));
    const last = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/organizations/${organization.id}/members/${owner.uuid}/`,
      headers,
    });
    assert.equal(last.statusCode, 400);
    assert.equal(last.json().detail, 'An organization must keep at least one owner.');
  });

  it('cannot read the members of another organization', async () => {
    const other = await makeTenant(ctx.deps.db);
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/organizations/${other.organization.id}/members/`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, 'You do not have permission to perform this action.');
  });

  it('resolves @current', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/organizations/@current/members/',
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().results[0].id, tenant.membership.id);
  });
});
