import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  bearer,
  makeKey,
  makeOrganization,
  makeProject,
  makeTenant,
  makeUser,
  type Tenant,
} from '../helpers/factories.ts';

describe('personal API keys', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  const create = (payload: unknown, headers = tenant.headers) =>
    ctx.app.inject({ method: 'POST', url: '/api/personal_api_keys/', headers, payload: payload as object });
  const get = (url: string, headers = tenant.headers) => ctx.app.inject({ method: 'GET', url, headers });

  it('creates a key, shows its value once, and the value works', async () => {
    const res = await create({ label: ' CI ', scopes: ['person:read', 'person:read'], extra: 'ignored' });
    assert.equal(res.statusCode, 201, res.body);
    const key = res.json();
    assert.match(key.value, /^phx_[0-9A-Za-z]{40,}$/);
    assert.equal(key.label, 'CI');
    assert.deepEqual(key.scopes, ['person:read']);
    assert.equal(key.mask_value, `${key.value.slice(0, 4)}...${key.value.slice(-4)}`);
    assert.equal(key.last_used_at, null);
    assert.equal(key.scoped_organizations, null);
    assert.equal(key.scoped_teams, null);

    const read = await get(`/api/personal_api_keys/${key.id}/`);
    assert.equal(read.statusCode, 200);
    assert.equal(read.json().value, null);
    assert.equal(read.json().mask_value, key.mask_value);

    const list = await get('/api/personal_api_keys/');
    assert.equal(list.statusCode, 200);
    const listed = list.json().results.find((k: { id: string }) => k.id === key.id);
    assert.equal(listed.value, null);
    assert.ok(!list.body.includes(key.value), 'the raw value never shows again');

    const stored = await ctx.deps.db
      .selectFrom('personal_api_keys')
      .selectAll()
      .where('id', '=', key.id)
      .executeTakeFirstOrThrow();
    assert.notEqual(stored.secure_value, key.value);
    assert.equal(stored.secure_value, crypto.createHash('sha256').update(key.value).digest('hex'));

    // The new key authenticates, and has only what it was given.
    const own = bearer(key.value);
    assert.equal(
      (await get('/api/personal_api_keys/', own)).json().detail,
      "API key missing required scope 'personal_api_key:read'",
    );
  });

  it('validates label and scopes', async () => {
    const cases: [unknown, string, string][] = [
      [{ label: '   ', scopes: ['*'] }, 'label', 'blank'],
      [{ label: '', scopes: ['*'] }, 'label', 'blank'],
      [{ label: 'x'.repeat(41), scopes: ['*'] }, 'label', 'max_length'],
      [{ scopes: ['*'] }, 'label', 'required'],
      [{ label: 'x' }, 'scopes', 'required'],
      [{ label: 'x', scopes: [] }, 'scopes', 'invalid_input'],
      [{ label: 'x', scopes: { a: 1 } }, 'scopes', 'invalid_input'],
      [{ label: 'x', scopes: ['person:delete'] }, 'scopes', 'invalid_input'],
      [{ label: 'x', scopes: ['*'], scoped_organizations: ['nope'] }, 'scoped_organizations', 'invalid_input'],
      [{ label: 'x', scopes: ['*'], scoped_teams: ['a'] }, 'scoped_teams.0', 'invalid_input'],
    ];
    for (const [body, attr, code] of cases) {
      const res = await create(body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().attr, attr, JSON.stringify(body));
      assert.equal(res.json().code, code, JSON.stringify(body));
    }
    const invalid = await create({ label: 'x', scopes: ['person:read', 'bogus:read'] });
    assert.deepEqual(invalid.json(), {
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Invalid scope: bogus:read',
      attr: 'scopes',
    });
    const badOrg = await create({ label: 'x', scopes: ['*'], scoped_organizations: ['nope'] });
    assert.equal(badOrg.json().detail, 'Invalid organization UUID');
  });

  it('a project id is never coerced from a boolean or a nested list', async () => {
    for (const item of [true, [tenant.project.id]]) {
      const res = await create({ label: 'x', scopes: ['*'], scoped_teams: [tenant.project.id, item] });
      assert.equal(res.statusCode, 400, `${JSON.stringify(item)}: ${res.body}`);
      assert.deepEqual(res.json(), {
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'A valid integer is required.',
        attr: 'scoped_teams.1',
      });
    }
    const text = await create({ label: 'x', scopes: ['*'], scoped_teams: [String(tenant.project.id)] });
    assert.equal(text.statusCode, 201, text.body);
    assert.deepEqual(text.json().scoped_teams, [tenant.project.id]);
    await ctx.deps.db.deleteFrom('personal_api_keys').where('id', '=', text.json().id).execute();
  });

  it('scoped organizations and teams must be the user’s', async () => {
    const other = await makeTenant(ctx.deps.db);
    const org = await create({ label: 'x', scopes: ['*'], scoped_organizations: [other.organization.id] });
    assert.equal(org.statusCode, 400);
    assert.deepEqual(org.json(), {
      type: 'validation_error',
      code: 'invalid_input',
      attr: 'scoped_organizations',
      detail: 'You must be a member of all organizations that you are scoping the key to.',
    });
    const team = await create({ label: 'x', scopes: ['*'], scoped_teams: [other.project.id] });
    assert.equal(team.statusCode, 400);
    assert.equal(team.json().detail, 'You must be a member of all teams that you are scoping the key to.');
    assert.equal(team.json().attr, 'scoped_teams');

    const project = await makeProject(ctx.deps.db, tenant.organization);
    const ok = await create({
      label: 'scoped',
      scopes: ['*'],
      scoped_organizations: [tenant.organization.id.toUpperCase()],
      scoped_teams: [project.id],
    });
    assert.equal(ok.statusCode, 201, ok.body);
    assert.deepEqual(ok.json().scoped_organizations, [tenant.organization.id]);
    assert.deepEqual(ok.json().scoped_teams, [project.id]);
  });

  it('a key never mints a key broader than itself', async () => {
    const narrow = bearer(
      await makeKey(ctx.deps.db, tenant.owner, { scopes: ['personal_api_key:write', 'person:read'] }),
    );
    const broader = await create({ label: 'x', scopes: ['*'] }, narrow);
    assert.equal(broader.statusCode, 403);
    assert.equal(broader.json().detail, "API key missing required scope '*'");
    const other = await create({ label: 'x', scopes: ['person:write'] }, narrow);
    assert.equal(other.json().detail, "API key missing required scope 'person:write'");
    const same = await create({ label: 'x', scopes: ['person:read'] }, narrow);
    assert.equal(same.statusCode, 201, same.body);

    const second = await makeOrganization(ctx.deps.db, tenant.owner);
    const restricted = bearer(
      await makeKey(ctx.deps.db, tenant.owner, { scopedOrganizations: [tenant.organization.id] }),
    );
    const escape = await create({ label: 'x', scopes: ['*'], scoped_organizations: [second.id] }, restricted);
    assert.equal(escape.statusCode, 403);
    const inherited = await create({ label: 'x', scopes: ['*'] }, restricted);
    assert.equal(inherited.statusCode, 201);
    assert.deepEqual(inherited.json().scoped_organizations, [tenant.organization.id]);
  });

  it('allows at most 10 keys a user', async () => {
    const user = await makeUser(ctx.deps.db);
    await makeOrganization(ctx.deps.db, user);
    const headers = bearer(await makeKey(ctx.deps.db, user));
    for (let i = 0; i < 9; i += 1)
      assert.equal((await create({ label: `k${i}`, scopes: ['*'] }, headers)).statusCode, 201);
    const eleventh = await create({ label: 'too many', scopes: ['*'] }, headers);
    assert.equal(eleventh.statusCode, 400);
    assert.deepEqual(eleventh.json(), {
      type: 'validation_error',
      code: 'invalid_input',
      attr: null,
      detail: 'You can only have 10 personal API keys. Remove an existing key before creating a new one.',
    });
    assert.equal((await get('/api/personal_api_keys/', headers)).json().count, 10);
  });

  it('someone else’s key is 404 to read and delete', async () => {
    const other = await makeTenant(ctx.deps.db);
    const theirs = await create({ label: 'theirs', scopes: ['*'] }, other.headers);
    const id = theirs.json().id;
    assert.equal((await get(`/api/personal_api_keys/${id}/`)).statusCode, 404);
    assert.equal(
      (await ctx.app.inject({ method: 'DELETE', url: `/api/personal_api_keys/${id}/`, headers: tenant.headers }))
        .statusCode,
      404,
    );
    assert.equal((await get(`/api/personal_api_keys/${id}/`, other.headers)).statusCode, 200);
    assert.equal((await get('/api/personal_api_keys/nonexistent/')).statusCode, 404);
  });

  it('deletes one’s own key (204) and the key stops working', async () => {
    const created = (await create({ label: 'doomed', scopes: ['*'] })).json();
    const res = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/personal_api_keys/${created.id}/`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await get(`/api/personal_api_keys/${created.id}/`)).statusCode, 404);
    const dead = await get('/api/organizations/', bearer(created.value));
    assert.equal(dead.statusCode, 401);
    assert.equal(dead.json().code, 'authentication_failed');
  });

  it('lists newest first in the envelope', async () => {
    const body = (await get('/api/personal_api_keys/?limit=2')).json();
    assert.equal(body.results.length, 2);
    assert.ok(body.count > 2);
    assert.ok(body.next);
    assert.ok(body.results[0].created_at >= body.results[1].created_at);
  });
});
