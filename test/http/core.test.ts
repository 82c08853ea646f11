import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

describe('http core', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('answers health', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/_health' });
    assert.equal(res.statusCode, 200);
  });

  it('answers ready when the database answers', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/_ready' });
    assert.equal(res.statusCode, 200);
  });

  it('renders an unknown route as the 404 envelope', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/nope' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  });

  it('answers 405 for a known path with another method', async () => {
    const res = await ctx.app.inject({ method: 'PUT', url: '/api/organizations/', headers: tenant.headers });
    assert.equal(res.statusCode, 405);
    assert.deepEqual(res.json(), {
      type: 'invalid_request',
      code: 'method_not_allowed',
      detail: 'Method "PUT" not allowed.',
      attr: null,
    });
  });

  it('answers 401 without credentials', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/organizations/' });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'not_authenticated');
  });

  it('lists organizations with a key, with and without trailing slash', async () => {
    for (const url of ['/api/organizations/', '/api/organizations']) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.count, 1);
      assert.equal(body.results[0].id, tenant.organization.id);
    }
  });

  it('resolves @current', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/organizations/@current/', headers: tenant.headers });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().id, tenant.organization.id);
  });

  it('rejects malformed JSON with 400', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/organizations/',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().type, 'validation_error');
  });

  it('rejects a bad limit with the parameter named', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/organizations/?limit=abc', headers: tenant.headers });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().attr, 'limit');
  });

  it('creates an organization whose owner is the caller (201), listed with the envelope', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/organizations/',
      headers: tenant.headers,
      payload: { name: '  Second Org ', extra: 1 },
    });
    assert.equal(res.statusCode, 201, res.body);
    const organization = res.json();
    assert.equal(organization.name, 'Second Org');
    assert.equal(organization.membership_level, 15);
    const fetched = await ctx.app.inject({
      method: 'GET',
      url: `/api/organizations/${organization.id}/`,
      headers: tenant.headers,
    });
    assert.equal(fetched.statusCode, 200);
    assert.deepEqual(fetched.json(), organization);
    const list = (await ctx.app.inject({ method: 'GET', url: '/api/organizations/', headers: tenant.headers })).json();
    assert.equal(list.count, 2);
    assert.equal(list.results[0].id, tenant.organization.id, '@current stays the first joined');
    const current = await ctx.app.inject({
      method: 'GET',
      url: '/api/organizations/@current/',
      headers: tenant.headers,
    });
    assert.equal(current.json().id, tenant.organization.id);
  });

  it('rejects a blank, missing or too long organization name', async () => {
    const post = (payload: object) =>
      ctx.app.inject({ method: 'POST', url: '/api/organizations/', headers: tenant.headers, payload });
    assert.deepEqual((await post({ name: '   ' })).json(), {
      type: 'validation_error',
      code: 'blank',
      detail: 'This field may not be blank.',
      attr: 'name',
    });
    assert.equal((await post({})).json().code, 'required');
    assert.equal((await post({ name: 'x'.repeat(65) })).json().code, 'max_length');
  });

  describe('input guards', () => {
    const json = { 'content-type': 'application/json' };
    const count = async (table: 'organizations') =>
      (
        await ctx.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n;

    it('refuses JSON nested deeper than 100 levels with a 400, not a stack overflow', async () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/organizations/',
        headers: { ...tenant.headers, ...json },
        payload: deep,
      });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().detail, 'The JSON is nested more than 100 levels deep.');
    });

    it('reads an empty JSON body as {}, so a missing field says required', async () => {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/organizations/',
        headers: { ...tenant.headers, ...json },
        payload: '',
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), {
        type: 'validation_error',
        code: 'required',
        detail: 'This field is required.',
        attr: 'name',
      });
    });

    it('refuses NUL characters in bodies (400 naming the field) and in path ids (404), writing nothing', async () => {
      const before = await count('organizations');
      const body = await ctx.app.inject({
        method: 'POST',
        url: '/api/organizations/',
        headers: tenant.headers,
        payload: { name: 'a\u0000b' },
      });
      assert.equal(body.statusCode, 400);
      assert.equal(body.json().attr, 'name');
      const path = await ctx.app.inject({ method: 'GET', url: '/api/personal_api_keys/%00/', headers: tenant.headers });
      assert.equal(path.statusCode, 404);
      assert.equal(await count('organizations'), before);
    });

    it('accepts only plain decimal paging values, and no offset past the largest safe integer', async () => {
      for (const query of [
        'limit=1e3',
        'limit=0x10',
        'limit=%205',
        'limit=%2B5',
        'limit=5.0',
        'offset=1e2',
        'limit=0',
        'offset=-1',
        'offset=99999999999999999999',
      ]) {
        const res = await ctx.app.inject({
          method: 'GET',
          url: `/api/organizations/?${query}`,
          headers: tenant.headers,
        });
        assert.equal(res.statusCode, 400, query);
        assert.equal(res.json().attr, query.split('=')[0], query);
      }
      const fine = await ctx.app.inject({
        method: 'GET',
        url: '/api/organizations/?limit=5&offset=0',
        headers: tenant.headers,
      });
      assert.equal(fine.statusCode, 200);
    });

    it('clamps a limit of any length to 1000, as a larger limit is', async () => {
      for (const limit of ['5000', '99999999999999999999']) {
        const res = await ctx.app.inject({
          method: 'GET',
          url: `/api/organizations/?limit=${limit}`,
          headers: tenant.headers,
        });
        assert.equal(res.statusCode, 200, `${limit}: ${res.body}`);
        assert.equal(res.json().count, res.json().results.length);
      }
    });

    it('does not coerce a list or a boolean into a string field of a body', async () => {
      for (const name of [['a'], true, { a: 1 }]) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/organizations/',
          headers: tenant.headers,
          payload: { name },
        });
        assert.deepEqual(
          res.json(),
          { type: 'validation_error', code: 'invalid_input', detail: 'Not a valid string.', attr: 'name' },
          JSON.stringify(name),
        );
      }
    });

    it('authenticates before it parses: no key and a malformed body is 401, not 400', async () => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/organizations/', headers: json, payload: '{bad' });
      assert.equal(res.statusCode, 401);
      const refused = await ctx.app.inject({ method: 'PUT', url: '/api/organizations/' });
      assert.equal(refused.statusCode, 401, 'credentials are checked before the method is refused');
    });
  });
});
