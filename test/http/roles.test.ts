import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

const ERROR = (code: string, detail: string, attr: string | null) => ({ type: 'validation_error', code, detail, attr });

describe('roles', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let base: string;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    base = `/api/organizations/${tenant.organization.id}/roles/`;
  });
  after(() => ctx.close());

  const post = (body: unknown, headers = tenant.headers, url = base) =>
    ctx.app.inject({ method: 'POST', url, headers, payload: body as object });
  const activityOf = (itemId: string) =>
    ctx.deps.db
      .selectFrom('activity_log')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('scope', '=', 'Role')
      .where('item_id', '=', itemId)
      .orderBy('created_at')
      .execute();

  it('creates a role with the Role object, created_by the key user, default level 37', async () => {
    const res = await post({ name: '  Engineering  ' });
    assert.equal(res.statusCode, 201, res.body);
    const role = res.json();
    assert.match(role.id, /^[0-9a-f-]{36}$/);
    assert.equal(role.name, 'Engineering');
    assert.equal(role.feature_flags_access_level, 37);
    assert.match(role.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.deepEqual(role.members, []);
    assert.deepEqual(role.associated_flags, []);
    assert.equal(role.created_by.id, tenant.owner.id);
    assert.equal(role.created_by.uuid, tenant.owner.uuid);
    assert.equal(role.created_by.email, tenant.owner.email);
    assert.equal(role.created_by.hedgehog_config, null);
    assert.deepEqual(Object.keys(role).sort(), [
      'associated_flags',
      'created_at',
      'created_by',
      'feature_flags_access_level',
      'id',
      'members',
      'name',
    ]);
    const stored = await ctx.deps.db
      .selectFrom('roles')
      .selectAll()
      .where('id', '=', role.id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.name, 'Engineering');
    assert.equal(stored.organization_id, tenant.organization.id);
  });

  it('honours feature_flags_access_level given on create', async () => {
    const res = await post({ name: 'Viewers', feature_flags_access_level: 21 });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().feature_flags_access_level, 21);
  });

  it('rejects a missing, blank or too long name', async () => {
    let res = await post({});
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('required', 'This field is required.', 'name'));
    for (const name of ['', '   ']) {
      res = await post({ name });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), ERROR('blank', 'This field may not be blank.', 'name'));
    }
    res = await post({ name: 'x'.repeat(201) });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('max_length', 'Ensure this field has no more than 200 characters.', 'name'));
  });

  it('accepts 200 characters after trimming', async () => {
    const name = 'y'.repeat(200);
    const res = await post({ name: `  ${name}  ` });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().name, name);
  });

  it('rejects a bad feature_flags_access_level', async () => {
    for (const value of [1, 22, 38, 'abc', true, 21.5, '']) {
      const res = await post({ name: `Level ${value}`, feature_flags_access_level: value });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(
        res.json(),
        ERROR('invalid_choice', `"${value}" is not a valid choice.`, 'feature_flags_access_level'),
      );
    }
    const nulled = await post({ name: 'Level null', feature_flags_access_level: null });
    assert.equal(nulled.statusCode, 400);
    assert.deepEqual(
      nulled.json(),
      ERROR('invalid_choice', '"null" is not a valid choice.', 'feature_flags_access_level'),
    );
    const list = await ctx.app.inject({ method: 'GET', url: base, headers: tenant.headers });
    assert.ok(!list.json().results.some((role: { name: string }) => role.name.startsWith('Level')));
  });

  it('rejects a null name and a body that is not an object', async () => {
    let res = await ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('required', 'This field is required.', 'name'));
    res = await post({ name: null });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('null', 'This field may not be null.', 'name'));
    res = await post([{ name: 'In a list' }]);
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().type, 'validation_error');
    res = await ctx.app.inject({
      method: 'POST',
      url: base,
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'invalid_input');
  });

  it('accepts the level as a numeric string and ignores unknown fields', async () => {
    const res = await post({ name: 'Stringly', feature_flags_access_level: '21', organization: 'elsewhere', id: 'x' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().feature_flags_access_level, 21);
  });

  it('rejects a name already used in the organization, ignoring case', async () => {
    assert.equal((await post({ name: 'Design' })).statusCode, 201);
    for (const name of ['Design', 'design', ' DESIGN ']) {
      const res = await post({ name });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), ERROR('unique', 'There is already a role with this name.', 'name'));
    }
  });

  it('allows the same name in another organization', async () => {
    const other = await makeTenant(ctx.deps.db);
    const res = await post({ name: 'Design' }, other.headers, `/api/organizations/${other.organization.id}/roles/`);
    assert.equal(res.statusCode, 201, res.body);
  });

  it('retrieves a role, with and without trailing slash, and via @current', async () => {
    const created = (await post({ name: 'Retrieve me' })).json();
    for (const url of [
      `${base}${created.id}/`,
      `${base}${created.id}`,
      `/api/organizations/@current/roles/${created.id}/`,
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), created);
    }
  });

  it('answers 404 for an unknown or malformed role id', async () => {
    for (const id of [crypto.randomUUID(), 'not-a-uuid', '123']) {
      for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
        const res = await ctx.app.inject({
          method,
          url: `${base}${id}/`,
          headers: tenant.headers,
          payload: method === 'PATCH' || method === 'PUT' ? { name: 'X' } : undefined,
        });
        assert.equal(res.statusCode, 404, `${method} ${id}: ${res.body}`);
        assert.deepEqual(res.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
      }
    }
  });

  it('answers 404 for an unknown or non-UUID organization', async () => {
    for (const org of [crypto.randomUUID(), 'not-a-valid-uuid']) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/organizations/${org}/roles/`,
        headers: tenant.headers,
      });
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'not_found');
    }
  });

  it('updates with PATCH, logging the changes', async () => {
    const created = (await post({ name: 'Patchable' })).json();
    let res = await ctx.app.inject({
      method: 'PATCH',
      url: `${base}${created.id}/`,
      headers: tenant.headers,
      payload: { name: ' Patched ' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Patched');
    assert.equal(res.json().feature_flags_access_level, 37);
    res = await ctx.app.inject({
      method: 'PATCH',
      url: `${base}${created.id}/`,
      headers: tenant.headers,
      payload: { feature_flags_access_level: 21 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Patched');
    assert.equal(res.json().feature_flags_access_level, 21);
    assert.equal(res.json().created_at, created.created_at);

    const log = await activityOf(created.id);
    assert.deepEqual(
      log.map((entry) => entry.activity),
      ['created', 'updated', 'updated'],
    );
    for (const entry of log) {
      assert.equal(entry.user_id, tenant.owner.id);
      assert.equal(entry.organization_id, tenant.organization.id);
      assert.equal(entry.team_id, null);
    }
    assert.deepEqual(log[1].detail, {
      changes: [{ type: 'Role', action: 'changed', field: 'name', before: 'Patchable', after: 'Patched' }],
      name: 'Patched',
    });
    assert.deepEqual(log[2].detail, {
      changes: [{ type: 'Role', action: 'changed', field: 'feature_flags_access_level', before: 37, after: 21 }],
      name: 'Patched',
    });
  });

  it('validates PATCH bodies like create', async () => {
    const created = (await post({ name: 'Validated' })).json();
    const url = `${base}${created.id}/`;
    const cases: [unknown, object][] = [
      [{ name: '  ' }, ERROR('blank', 'This field may not be blank.', 'name')],
      [{ name: 'z'.repeat(201) }, ERROR('max_length', 'Ensure this field has no more than 200 characters.', 'name')],
      [
        { feature_flags_access_level: 99 },
        ERROR('invalid_choice', '"99" is not a valid choice.', 'feature_flags_access_level'),
      ],
      [{ name: 'engineering' }, ERROR('unique', 'There is already a role with this name.', 'name')],
    ];
    for (const [payload, expected] of cases) {
      const res = await ctx.app.inject({ method: 'PATCH', url, headers: tenant.headers, payload: payload as object });
      assert.equal(res.statusCode, 400, JSON.stringify(payload));
      assert.deepEqual(res.json(), expected);
    }
    const unchanged = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
    assert.equal(unchanged.json().name, 'Validated');
  });

  it('allows renaming a role to another case of its own name', async () => {
    const created = (await post({ name: 'marketing' })).json();
    const res = await ctx.app.inject({
      method: 'PATCH',
      url: `${base}${created.id}/`,
      headers: tenant.headers,
      payload: { name: 'Marketing' },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Marketing');
    const same = await ctx.app.inject({
      method: 'PATCH',
      url: `${base}${created.id}/`,
      headers: tenant.headers,
      payload: { name: 'Marketing' },
    });
    assert.equal(same.statusCode, 200, same.body);
  });

  it('updates with PUT, which requires the name', async () => {
    const created = (await post({ name: 'Puttable' })).json();
    const url = `${base}${created.id}/`;
    let res = await ctx.app.inject({
      method: 'PUT',
      url,
      headers: tenant.headers,
      payload: { feature_flags_access_level: 21 },
    });
    assert.equal(res.statusCode, 400);
    assert.deepEqual(res.json(), ERROR('required', 'This field is required.', 'name'));
    res = await ctx.app.inject({
      method: 'PUT',
      url,
      headers: tenant.headers,
      payload: { name: 'Put', feature_flags_access_level: 21 },
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'Put');
    assert.equal(res.json().feature_flags_access_level, 21);
  });

  it('deletes a role with 204 and no body, logging it; then 404', async () => {
    const created = (await post({ name: 'Doomed' })).json();
    const res = await ctx.app.inject({ method: 'DELETE', url: `${base}${created.id}/`, headers: tenant.headers });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const again = await ctx.app.inject({ method: 'GET', url: `${base}${created.id}/`, headers: tenant.headers });
    assert.equal(again.statusCode, 404);
    const log = await activityOf(created.id);
    assert.deepEqual(
      log.map((entry) => entry.activity),
      ['created', 'deleted'],
    );
    assert.deepEqual(log[1].detail, { changes: null, name: 'Doomed' });
    assert.equal(log[1].user_id, tenant.owner.id);
  });

  it('lists associated flags granted to the role', async () => {
    const created = (await post({ name: 'Flagged' })).json();
    const flags = await ctx.deps.db
      .insertInto('feature_flags')
      .values([
        { team_id: tenant.project.id, key: 'beta-ui' },
        { team_id: tenant.project.id, key: 'new-nav' },
      ])
      .returning(['id', 'key'])
      .execute();
    await ctx.deps.db
      .insertInto('feature_flag_role_access')
      .values(
        flags.map((flag) => ({
          organization_id: tenant.organization.id,
          role_id: created.id,
          team_id: tenant.project.id,
          feature_flag_id: flag.id,
        })),
      )
      .execute();
    const res = await ctx.app.inject({ method: 'GET', url: `${base}${created.id}/`, headers: tenant.headers });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(
      res.json().associated_flags,
      flags.map((flag) => ({ id: flag.id, key: flag.key })),
    );
  });
});

describe('roles list', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let base: string;
  const names = ['Gamma', 'Alpha', 'Beta', 'Delta', 'Epsilon'];

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    base = `/api/organizations/${tenant.organization.id}/roles/`;
    ctx.clock.set('2026-01-01T10:00:00.000Z');
    for (const name of names) {
      const res = await ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name } });
      assert.equal(res.statusCode, 201, res.body);
      ctx.clock.advance(1000);
    }
  });
  after(() => ctx.close());

  it('lists roles in creation order in the envelope', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: base, headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.count, 5);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(
      body.results.map((role: { name: string }) => role.name),
      names,
    );
    assert.equal(body.results[0].created_at, '2026-01-01T10:00:00.000Z');
  });

  it('paginates with limit and offset', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: `${base}?limit=2&offset=2`, headers: tenant.headers });
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.equal(body.count, 5);
    assert.deepEqual(
      body.results.map((role: { name: string }) => role.name),
      ['Beta', 'Delta'],
    );
    assert.equal(body.next, `http://localhost:80${base}?limit=2&offset=4`);
    assert.equal(body.previous, `http://localhost:80${base}?limit=2&offset=0`);
  });

  it('rejects bad paging parameters', async () => {
    for (const [query, attr] of [
      ['limit=0', 'limit'],
      ['limit=x', 'limit'],
      ['offset=-1', 'offset'],
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url: `${base}?${query}`, headers: tenant.headers });
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().attr, attr);
    }
  });

  it('ties on created_at order by id', async () => {
    const other = await makeTenant(ctx.deps.db);
    const url = `/api/organizations/${other.organization.id}/roles/`;
    ctx.clock.set('2026-02-01T00:00:00.000Z');
    const ids: string[] = [];
    for (const name of ['One', 'Two', 'Three'])
      ids.push((await ctx.app.inject({ method: 'POST', url, headers: other.headers, payload: { name } })).json().id);
    const res = await ctx.app.inject({ method: 'GET', url, headers: other.headers });
    assert.deepEqual(
      res.json().results.map((role: { id: string }) => role.id),
      [...ids].sort(),
    );
  });
});
