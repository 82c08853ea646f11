import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant } from '../helpers/factories.ts';
import { enc } from './persons.fixtures.ts';

describe('persons properties filter', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let url: string;
  const ids: Record<string, number> = {};

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    url = `/api/projects/${tenant.project.id}/persons/`;
    const t = tenant.project.id;
    const rows: [string, Record<string, unknown>][] = [
      [
        'ann',
        { email: 'ann@acme.io', plan: 'pro', age: 30, score: '7.5', signup: '2026-03-01T10:00:00Z', active: true },
      ],
      ['ben', { email: 'ben@Acme.io', plan: 'free', age: 17, score: 'n/a', signup: '2026-02-15', active: false }],
      ['cat', { email: 'cat@other.org', plan: 'pro', age: '45', signup: 'not a date', nothing: null }],
      ['dan', { plan: 5, age: 30.5 }],
    ];
    for (const [name, properties] of rows)
      ids[name] = (await makePerson(ctx.deps.db, t, { properties, distinctIds: [name] })).id;
  });
  after(() => ctx.close());

  async function match(filter: unknown): Promise<string[]> {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `${url}?properties=${enc(filter)}`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 200, res.body);
    const byId = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    return res
      .json()
      .results.map((p: { id: number }) => byId[p.id])
      .sort();
  }

  async function rejected(filter: string): Promise<{ detail: string; attr: string }> {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `${url}?properties=${encodeURIComponent(filter)}`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 400, res.body);
    assert.equal(res.json().attr, 'properties');
    return res.json();
  }

  it('exact (default), with a list meaning any of, comparing the text form', async () => {
    assert.deepEqual(await match([{ key: 'plan', value: 'pro' }]), ['ann', 'cat']);
    assert.deepEqual(await match([{ key: 'plan', value: ['free', 5], operator: 'exact' }]), ['ben', 'dan']);
    assert.deepEqual(await match([{ key: 'age', value: '30' }]), ['ann']);
    assert.deepEqual(await match([{ key: 'active', value: true }]), ['ann']);
    assert.deepEqual(await match([{ key: 'email', value: 'ANN@acme.io' }]), []);
  });

  it('is_not keeps persons without the property', async () => {
    assert.deepEqual(await match([{ key: 'plan', value: 'pro', operator: 'is_not' }]), ['ben', 'dan']);
    assert.deepEqual(await match([{ key: 'email', value: ['ann@acme.io', 'ben@Acme.io'], operator: 'is_not' }]), [
      'cat',
      'dan',
    ]);
  });

  it('icontains and not_icontains, ignoring case, wildcards literal', async () => {
    assert.deepEqual(await match([{ key: 'email', value: 'ACME', operator: 'icontains' }]), ['ann', 'ben']);
    assert.deepEqual(await match([{ key: 'email', value: 'acme', operator: 'not_icontains' }]), ['cat', 'dan']);
    assert.deepEqual(await match([{ key: 'email', value: '%', operator: 'icontains' }]), []);
  });

  it('regex and not_regex; a pattern the database rejects matches nothing, one JavaScript rejects is a 400', async () => {
    assert.deepEqual(await match([{ key: 'email', value: '^[ab].*@acme', operator: 'regex' }]), ['ann']);
    assert.deepEqual(await match([{ key: 'email', value: '@acme', operator: 'not_regex' }]), ['ben', 'cat', 'dan']);
    // Valid in JavaScript, rejected by PostgreSQL (an unknown escape): no crash, no match.
    assert.deepEqual(await match([{ key: 'email', value: 'a\\pnn', operator: 'regex' }]), []);
    assert.deepEqual(await match([{ key: 'email', value: 'a\\pnn', operator: 'not_regex' }]), []);
    const error = await rejected(JSON.stringify([{ key: 'email', value: '([a-', operator: 'regex' }]));
    assert.match(error.detail, /Invalid regular expression/);
  });

  it('gt, gte, lt, lte compare numbers, numeric strings included', async () => {
    assert.deepEqual(await match([{ key: 'age', value: 30, operator: 'gt' }]), ['cat', 'dan']);
    assert.deepEqual(await match([{ key: 'age', value: '30', operator: 'gte' }]), ['ann', 'cat', 'dan']);
    assert.deepEqual(await match([{ key: 'age', value: 30, operator: 'lt' }]), ['ben']);
    assert.deepEqual(await match([{ key: 'age', value: 30, operator: 'lte' }]), ['ann', 'ben']);
    assert.deepEqual(await match([{ key: 'score', value: 7, operator: 'gt' }]), ['ann']);
    const error = await rejected(JSON.stringify([{ key: 'age', value: 'many', operator: 'gt' }]));
    assert.match(error.detail, /needs a number/);
  });

  it('is_set and is_not_set (a null value is not set)', async () => {
    assert.deepEqual(await match([{ key: 'email', operator: 'is_set', value: 'is_set' }]), ['ann', 'ben', 'cat']);
    assert.deepEqual(await match([{ key: 'email', operator: 'is_not_set' }]), ['dan']);
    assert.deepEqual(await match([{ key: 'nothing', operator: 'is_set' }]), []);
    assert.deepEqual(await match([{ key: 'nothing', operator: 'is_not_set' }]).then((r) => r.length), 4);
  });

  it('is_date_exact, is_date_before, is_date_after; unparseable stored dates never match', async () => {
    assert.deepEqual(await match([{ key: 'signup', value: '2026-03-01', operator: 'is_date_exact' }]), ['ann']);
    assert.deepEqual(await match([{ key: 'signup', value: '2026-03-01T10:00:00Z', operator: 'is_date_exact' }]), [
      'ann',
    ]);
    assert.deepEqual(await match([{ key: 'signup', value: '2026-03-01', operator: 'is_date_before' }]), ['ben']);
    assert.deepEqual(await match([{ key: 'signup', value: '2026-02-20', operator: 'is_date_after' }]), ['ann']);
    // A date-time without an offset is UTC, whatever the server's time zone.
    const zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
    try {
      assert.deepEqual(await match([{ key: 'signup', value: '2026-03-01T10:00:00', operator: 'is_date_exact' }]), [
        'ann',
      ]);
      assert.deepEqual(await match([{ key: 'signup', value: '2026-03-01 09:00:00', operator: 'is_date_after' }]), [
        'ann',
      ]);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
    for (const value of ['yesterday-ish', '+200000-01-01T00:00:00Z']) {
      const error = await rejected(JSON.stringify([{ key: 'signup', value, operator: 'is_date_after' }]));
      assert.match(error.detail, /needs a date/);
    }
  });

  it('nests AND and OR groups', async () => {
    const filter = {
      type: 'OR',
      values: [
        {
          type: 'AND',
          values: [
            { key: 'plan', value: 'pro' },
            { key: 'age', value: 40, operator: 'gt' },
          ],
        },
        {
          type: 'AND',
          values: [
            { key: 'plan', value: 'free' },
            {
              type: 'OR',
              values: [
                { key: 'active', value: false },
                { key: 'age', value: 99 },
              ],
            },
          ],
        },
      ],
    };
    assert.deepEqual(await match(filter), ['ben', 'cat']);
    assert.deepEqual(await match({ type: 'AND', values: [] }), ['ann', 'ben', 'cat', 'dan']);
    // A bare filter object is a group of one.
    assert.deepEqual(await match({ key: 'plan', value: 5 }), ['dan']);
  });

  it('treats a property key as data, never as SQL', async () => {
    assert.deepEqual(await match([{ key: "plan' or '1'='1", value: 'pro' }]), []);
    assert.deepEqual(await match([{ key: 'plan', value: "pro' or '1'='1" }]), []);
  });

  it('answers 400 with attr properties for malformed filters', async () => {
    await rejected('not json');
    await rejected('42');
    await rejected(JSON.stringify([{ value: 'x' }]));
    await rejected(JSON.stringify([{ key: 'a', value: 'x', operator: 'startswith' }]));
    await rejected(JSON.stringify([{ key: 'a', value: 'x', type: 'group' }]));
    await rejected(JSON.stringify([{ key: 'a' }]));
    await rejected(JSON.stringify([{ key: 'a', value: { nested: true } }]));
    await rejected(JSON.stringify([{ key: 'a', value: [] }]));
    await rejected(JSON.stringify({ type: 'AND', values: 'x' }));
    await rejected(JSON.stringify([{ key: 'a', value: 1, type: 'event' }]));
  });

  it('answers 400 naming the field for NUL characters, which the database cannot store', async () => {
    const cases: [string, string][] = [
      [`${url}?distinct_id=a%00b`, 'distinct_id'],
      [`${url}?search=a%00b`, 'search'],
      [`${url}?email=a%00b`, 'email'],
      [`${url}?properties=${enc([{ key: 'a\u0000', value: 'x' }])}`, 'properties'],
      [`${url}values/?key=a%00`, 'key'],
    ];
    for (const [path, attr] of cases) {
      const res = await ctx.app.inject({ method: 'GET', url: path, headers: tenant.headers });
      assert.equal(res.statusCode, 400, path);
      assert.deepEqual(res.json(), {
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'Null characters are not allowed.',
        attr,
      });
    }
    const bulk = await ctx.app.inject({
      method: 'POST',
      url: `${url}bulk_delete/`,
      headers: tenant.headers,
      payload: { distinct_ids: ['ok', 'a\u0000'] },
    });
    assert.equal(bulk.json().attr, 'distinct_ids.1');
    const patch = await ctx.app.inject({
      method: 'PATCH',
      url: `${url}${ids.ann}/`,
      headers: tenant.headers,
      payload: { properties: { 'k\u0000': 1 } },
    });
    assert.equal(patch.json().attr, 'properties.k\u0000');
    const cohort = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${tenant.project.id}/cohorts/`,
      headers: tenant.headers,
      payload: { name: 'a\u0000' },
    });
    assert.equal(cohort.json().attr, 'name');
  });

  it('limits nesting to 20 groups and 10 000 values', async () => {
    const nest = (depth: number): unknown =>
      depth === 1
        ? { type: 'AND', values: [{ key: 'plan', value: 'pro' }] }
        : { type: 'AND', values: [nest(depth - 1)] };
    assert.deepEqual(await match(nest(20)), ['ann', 'cat']);
    assert.deepEqual(await match([nest(19)]), ['ann', 'cat']);
    assert.match((await rejected(JSON.stringify(nest(21)))).detail, /nest at most 20/);
    assert.match((await rejected(JSON.stringify([nest(20)]))).detail, /nest at most 20/);
    const many = Array.from({ length: 10_001 }, (_, index) => `v${index}`);
    const res = await ctx.app.inject({
      method: 'GET',
      url: `${url}?properties=${enc([{ key: 'plan', value: many }])}`,
      headers: tenant.headers,
    });
    assert.equal(res.statusCode, 400, res.body.slice(0, 200));
    assert.equal(res.json().attr, 'properties');
    assert.deepEqual(await match([{ key: 'plan', value: [...many.slice(0, 9_000), 'pro'] }]), ['ann', 'cat']);
  });
});
