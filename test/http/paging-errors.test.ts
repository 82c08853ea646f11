// A refused limit or offset says the range it must be in (issue 12: `limit=-1` said only "A valid
// integer is required."), on every kind of list: management, persons, analytical views.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

const refusal = (detail: string, attr: string) => ({ type: 'validation_error', code: 'invalid_input', detail, attr });

describe('paging parameters out of range', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let lists: string[];
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    lists = [
      '/api/organizations/',
      `/api/organizations/${tenant.organization.id}/members/`,
      `/api/organizations/${tenant.organization.id}/roles/`,
      `/api/projects/${tenant.project.id}/persons/`,
      `/api/projects/${tenant.project.id}/persons/funnel/`,
    ];
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: tenant.headers });

  it('a limit below 1 or a negative offset: "Ensure this value is greater than or equal to …"', async () => {
    const cases: [string, ReturnType<typeof refusal>][] = [
      ['limit=-1', refusal('Ensure this value is greater than or equal to 1.', 'limit')],
      ['limit=0', refusal('Ensure this value is greater than or equal to 1.', 'limit')],
      ['limit=-99999999999999999999', refusal('Ensure this value is greater than or equal to 1.', 'limit')],
      ['offset=-1', refusal('Ensure this value is greater than or equal to 0.', 'offset')],
    ];
    for (const list of lists) {
      for (const [query, expected] of cases) {
        const res = await get(`${list}?${query}`);
        assert.equal(res.statusCode, 400, `${list}?${query}`);
        assert.deepEqual(res.json(), expected, `${list}?${query}`);
      }
    }
  });

  it('a value that is no integer says which integers are allowed', async () => {
    for (const list of lists) {
      for (const text of ['abc', '1.5', '1e3', '0x10', '%205', '%2B5', '1-']) {
        const res = await get(`${list}?limit=${text}&offset=0`);
        assert.deepEqual(
          res.json(),
          refusal('A valid integer greater than or equal to 1 is required.', 'limit'),
          `${list}?limit=${text}`,
        );
      }
      const offset = await get(`${list}?offset=x`);
      assert.deepEqual(offset.json(), refusal('A valid integer greater than or equal to 0 is required.', 'offset'));
    }
  });

  it('an offset past the largest safe integer says the largest, and the largest itself is a page', async () => {
    const path = `/api/projects/${tenant.project.id}/persons/`;
    const over = await get(`${path}?offset=99999999999999999999`);
    assert.deepEqual(over.json(), refusal('Ensure this value is less than or equal to 9007199254740991.', 'offset'));
    const largest = await get(`${path}?offset=9007199254740991`);
    assert.equal(largest.statusCode, 200, largest.body);
    assert.deepEqual(largest.json().results, []);
  });

  it('the analytical views say the range of a limit sent in a POST body too', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${tenant.project.id}/persons/funnel/`,
      headers: tenant.headers,
      payload: { limit: 'many' },
    });
    assert.deepEqual(res.json(), refusal('A valid integer greater than or equal to 1 is required.', 'limit'));
  });
});
