// Definitions kept by capture (through the real capture endpoint) and their lists: event names,
// event and person property keys with inferred types, an event property's values; scopes,
// isolation between projects, paging, search escaping.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestContext } from '../helpers/app.ts';
import { setupTwoTenants } from '../helpers/two-tenants.ts';
import { makeKey, makeTenant, bearer, type Tenant } from '../helpers/factories.ts';
import { post } from './capture-helpers.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const HOUR = 60 * 60 * 1000;
let ctx: TestContext;
let tenant: Tenant;
let other: Tenant;

before(async () => {
  ({ ctx, tenant, other } = await setupTwoTenants(NOW));
});
after(() => ctx.close());

async function capture(target: Tenant, batch: object[]) {
  const response = await post(ctx.app, '/batch/', { api_key: target.project.api_token, batch });
  assert.equal(response.statusCode, 200, response.body);
}

const get = (url: string, headers: Record<string, string> = tenant.headers) =>
  ctx.app.inject({ method: 'GET', url, headers });
const projectUrl = (path: string, target: Tenant = tenant) => `/api/projects/${target.project.id}/${path}`;
const names = (body: { results: { name: string }[] }) => body.results.map((item) => item.name);

describe('definitions kept by capture', () => {
  before(async () => {
    await capture(tenant, [
      {
        event: '$pageview',
        distinct_id: 'ada',
        properties: { $current_url: 'https://app.example.com/', amount: 12.5, agreed: true, since: '2026-05-01' },
        timestamp: '2026-06-01T11:00:00Z',
      },
      {
        event: '$pageview',
        distinct_id: 'ada',
        properties: {
          $current_url: 'https://app.example.com/pricing',
          amount: null,
          agreed: 'false',
          nested: { a: 1 },
        },
        timestamp: '2026-06-01T11:01:00Z',
      },
      {
        event: '$pageview',
        distinct_id: 'bob',
        properties: { $current_url: 'https://app.example.com/', at: '2026-05-01T10:00:00.123Z' },
        timestamp: '2026-06-01T11:02:00Z',
      },
      {
        event: 'signed_up',
        distinct_id: 'ada',
        properties: {
          plan: 'pro',
          seats: 3,
          a_b: 'x',
          axb: 'y',
          '100%': 'z',
          $set: { email: 'ada@example.com', age: 36 },
          $set_once: { first_seen: '2026-06-01T11:00:00Z' },
        },
        timestamp: '2026-06-01T11:03:00Z',
      },
    ]);
    // An event of the other project: never listed in this one.
    await capture(other, [{ event: 'elsewhere', distinct_id: 'x', properties: { secret: 'no' } }]);
  });

  it('lists the event names in the platform shape, with their volume of 30 days', async () => {
    const response = await get(projectUrl('event_definitions/'));
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.count, 2);
    assert.deepEqual(names(body).sort(), ['$pageview', 'signed_up']);
    const pageview = body.results.find((item: { name: string }) => item.name === '$pageview');
    assert.deepEqual(Object.keys(pageview).sort(), ['created_at', 'id', 'last_seen_at', 'name', 'volume_30_day']);
    assert.match(pageview.id, /^[0-9a-f-]{36}$/);
    assert.equal(pageview.volume_30_day, 3);
    assert.equal(pageview.created_at, NOW);
    assert.equal(pageview.last_seen_at, NOW);
  });

  it('infers each event property type from the values seen, and hides the person-update keys', async () => {
    const body = (await get(projectUrl('property_definitions/?limit=100'))).json();
    const types = Object.fromEntries(
      body.results.map((item: { name: string; property_type: string | null }) => [item.name, item.property_type]),
    );
    assert.deepEqual(
      { ...types, $ip: undefined, $sent_at: undefined },
      {
        $current_url: 'String',
        amount: 'Numeric',
        agreed: 'Boolean',
        since: 'DateTime',
        at: 'DateTime',
        nested: null,
        plan: 'String',
        seats: 'Numeric',
        a_b: 'String',
        axb: 'String',
        '100%': 'String',
        $ip: undefined,
        $sent_at: undefined,
      },
    );
    assert.ok(!('$set' in types) && !('$set_once' in types), 'person updates are not event properties');
    const amount = body.results.find((item: { name: string }) => item.name === 'amount');
    assert.deepEqual(Object.keys(amount).sort(), [
      'id',
      'is_numerical',
      'is_seen_on_filtered_events',
      'name',
      'property_type',
    ]);
    assert.equal(amount.is_numerical, true);
    assert.equal(amount.is_seen_on_filtered_events, null);
    assert.deepEqual(names(body), [...names(body)].sort(), 'by name');
  });

  it('filters by event names, numerical type and escaped search', async () => {
    const onSignup = (
      await get(projectUrl(`property_definitions/?event_names=${encodeURIComponent('["signed_up"]')}`))
    ).json();
    assert.deepEqual(
      names(onSignup).filter((name) => !name.startsWith('$')),
      ['100%', 'a_b', 'axb', 'plan', 'seats'],
    );
    assert.ok(
      onSignup.results.every((item: { is_seen_on_filtered_events: boolean }) => item.is_seen_on_filtered_events),
    );
    const numerical = (await get(projectUrl('property_definitions/?is_numerical=true'))).json();
    assert.deepEqual(names(numerical), ['amount', 'seats']);
    const notNumerical = (await get(projectUrl('property_definitions/?is_numerical=false'))).json();
    assert.ok(!names(notNumerical).includes('amount') && names(notNumerical).includes('plan'));
    // `_` and `%` match only themselves.
    assert.deepEqual(names((await get(projectUrl('property_definitions/?search=_'))).json()), ['$current_url', 'a_b']);
    assert.deepEqual(names((await get(projectUrl('property_definitions/?search=%25'))).json()), ['100%']);
    assert.deepEqual(names((await get(projectUrl('property_definitions/?search=A%20_'))).json()), ['a_b']);
    assert.deepEqual(names((await get(projectUrl('event_definitions/?search=SIGNED'))).json()), ['signed_up']);
    assert.deepEqual(names((await get(projectUrl('event_definitions/?search=_'))).json()), ['signed_up']);
  });

  it('lists person properties from $set and $set_once, and from person updates of the API', async () => {
    const people = (await get(projectUrl('property_definitions/?type=person&limit=100'))).json();
    const types = Object.fromEntries(
      people.results.map((item: { name: string; property_type: string | null }) => [item.name, item.property_type]),
    );
    assert.equal(types.email, 'String');
    assert.equal(types.age, 'Numeric');
    assert.equal(types.first_seen, 'DateTime');
    assert.ok(!('plan' in types), 'an event property is not a person property');
    const persons = (await get(projectUrl('persons/?distinct_id=ada'))).json();
    const patched = await ctx.app.inject({
      method: 'PATCH',
      url: projectUrl(`persons/${persons.results[0].id}/`),
      headers: tenant.headers,
      payload: { properties: { vip: true } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    const after = (await get(projectUrl('property_definitions/?type=person&search=vip'))).json();
    assert.deepEqual(
      after.results.map((item: { name: string; property_type: string }) => [item.name, item.property_type]),
      [['vip', 'Boolean']],
    );
  });

  it('answers the values of an event property, most frequent first', async () => {
    const response = await get(projectUrl('events/values/?key=%24current_url'));
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['cache-control'], 'max-age=10');
    assert.deepEqual(response.json(), [
      { name: 'https://app.example.com/' },
      { name: 'https://app.example.com/pricing' },
    ]);
    assert.deepEqual((await get(projectUrl('events/values/?key=seats'))).json(), [{ name: '3' }]);
    assert.deepEqual((await get(projectUrl('events/values/?key=seats&event_name=%24pageview'))).json(), []);
    assert.deepEqual((await get(projectUrl('events/values/?key=plan&event_name=signed_up&event_name=x'))).json(), [
      { name: 'pro' },
    ]);
    assert.deepEqual((await get(projectUrl('events/values/?key=%24current_url&value=PRIC'))).json(), [
      { name: 'https://app.example.com/pricing' },
    ]);
    assert.deepEqual((await get(projectUrl('events/values/?key=secret'))).json(), [], "another project's key");
  });

  it('keeps them current: a new name at once, last_seen_at to the hour', async () => {
    const seenAt = async (name: string) =>
      (await get(projectUrl(`event_definitions/?search=${encodeURIComponent(name)}`))).json().results[0]?.last_seen_at;
    ctx.clock.advance(10 * 60 * 1000);
    await capture(tenant, [{ event: '$pageview', distinct_id: 'ada', properties: { fresh_key: 1 } }]);
    assert.equal(await seenAt('$pageview'), NOW, 'within the hour: unchanged');
    assert.deepEqual(names((await get(projectUrl('property_definitions/?search=fresh_key'))).json()), ['fresh_key']);
    await capture(tenant, [{ event: 'brand new', distinct_id: 'ada' }]);
    assert.equal(await seenAt('brand new'), NOW, 'to the hour');
    ctx.clock.advance(2 * HOUR);
    await capture(tenant, [{ event: '$pageview', distinct_id: 'ada' }]);
    assert.equal(await seenAt('$pageview'), new Date(Date.parse(NOW) + 2 * HOUR).toISOString());
  });

  it('writes what capture buffered within a second, with no request reading it', async () => {
    await capture(tenant, [{ event: 'buffered only', distinct_id: 'ada', properties: { buffered_key: 'v' } }]);
    const stored = () =>
      ctx.deps.db
        .selectFrom('event_definitions')
        .select('name')
        .where('team_id', '=', tenant.project.id)
        .where('name', '=', 'buffered only')
        .execute();
    assert.deepEqual(await stored(), [], 'buffered, not yet written');
    const until = Date.now() + 5000;
    while ((await stored()).length === 0 && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal((await stored()).length, 1);
  });

  it('pages with limit and offset', async () => {
    const all = (await get(projectUrl('event_definitions/'))).json();
    // The person update of the API above was stored as a `$set` event.
    assert.deepEqual(names(all).sort(), ['$pageview', '$set', 'brand new', 'buffered only', 'signed_up']);
    assert.equal(names(all)[0], '$pageview', 'most recently seen first');
    const first = (await get(projectUrl('event_definitions/?limit=1'))).json();
    assert.equal(first.count, 5);
    assert.deepEqual(names(first), [names(all)[0]]);
    assert.equal(first.previous, null);
    assert.match(first.next, /limit=1&offset=1$/);
    const last = (await get(projectUrl('event_definitions/?limit=1&offset=4'))).json();
    assert.equal(last.next, null);
    assert.match(last.previous, /limit=1&offset=3$/);
    assert.deepEqual(names(last), [names(all)[4]]);
    const props = (await get(projectUrl('property_definitions/?limit=2&offset=1'))).json();
    assert.equal(props.results.length, 2);
    assert.match(props.next, /limit=2&offset=3/);
  });

  it('answers 400 naming the parameter for bad input', async () => {
    const cases: [string, string][] = [
      ['property_definitions/?type=group', 'type'],
      ['property_definitions/?event_names=nope', 'event_names'],
      ['property_definitions/?event_names=%5B1%5D', 'event_names'],
      ['property_definitions/?type=person&event_names=%5B%5D', 'event_names'],
      ['property_definitions/?is_numerical=maybe', 'is_numerical'],
      ['event_definitions/?limit=0', 'limit'],
      ['events/values/', 'key'],
    ];
    for (const [path, attr] of cases) {
      const response = await get(projectUrl(path));
      assert.equal(response.statusCode, 400, `${path}: ${response.body}`);
      assert.equal(response.json().attr, attr, path);
    }
  });

  it('checks scopes: each list needs its own', async () => {
    const key = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['event_definition:read'] });
    assert.equal((await get(projectUrl('event_definitions/'), bearer(key))).statusCode, 200);
    assert.equal((await get(projectUrl('property_definitions/'), bearer(key))).statusCode, 403);
    assert.equal((await get(projectUrl('events/values/?key=plan'), bearer(key))).statusCode, 403);
    const props = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['property_definition:read', 'query:read'] });
    assert.equal((await get(projectUrl('property_definitions/'), bearer(props))).statusCode, 200);
    assert.equal((await get(projectUrl('events/values/?key=plan'), bearer(props))).statusCode, 200);
    assert.equal((await get(projectUrl('event_definitions/'), bearer(props))).statusCode, 403);
  });

  it("never shows another project's definitions, nor lets another organization read them", async () => {
    const theirs = (await get(projectUrl('event_definitions/', other), other.headers)).json();
    assert.deepEqual(names(theirs), ['elsewhere']);
    for (const path of ['event_definitions/', 'property_definitions/', 'events/values/?key=plan']) {
      const response = await get(projectUrl(path), other.headers);
      assert.ok([403, 404].includes(response.statusCode), `${path}: ${response.statusCode}`);
    }
    const mine = (await get(projectUrl('property_definitions/?search=secret'))).json();
    assert.equal(mine.count, 0);
  });
});

describe('names too long to be definitions', () => {
  it('keeps no definition of a key over 400 characters, from capture or a person update', async () => {
    const own = await makeTenant(ctx.deps.db);
    const long = 'k'.repeat(2000);
    const longUnicode = '\u{1F600}'.repeat(401);
    await capture(own, [
      {
        event: 'long_keys',
        distinct_id: 'ada',
        properties: { [long]: 1, ['k'.repeat(400)]: 2, $set: { [longUnicode]: 'x' } },
      },
    ]);
    const persons = (await get(projectUrl('persons/?distinct_id=ada', own), own.headers)).json();
    const updated = await ctx.app.inject({
      method: 'POST',
      url: projectUrl(`persons/${persons.results[0].id}/update_property/`, own),
      headers: own.headers,
      payload: { key: long, value: 'y' },
    });
    assert.equal(updated.statusCode, 200, updated.body.slice(0, 200));
    const kept = (
      await get(projectUrl('property_definitions/?event_names=["long_keys"]&limit=100', own), own.headers)
    ).json();
    assert.deepEqual(names(kept).sort(), ['$ip', 'k'.repeat(400)]);
    const people = (await get(projectUrl('property_definitions/?type=person&limit=100', own), own.headers)).json();
    assert.ok(!names(people).some((name) => name.length > 400), 'no person key over 400 characters');
  });
});

describe('a closing server', () => {
  it('writes what capture buffered before its database closes', async () => {
    const own = await setupTwoTenants(NOW);
    try {
      const response = await post(own.ctx.app, '/batch/', {
        api_key: own.tenant.project.api_token,
        batch: [{ event: 'last words', distinct_id: 'ada' }],
      });
      assert.equal(response.statusCode, 200, response.body);
      await own.ctx.app.close();
      const rows = await own.ctx.deps.db
        .selectFrom('event_definitions')
        .select('name')
        .where('team_id', '=', own.tenant.project.id)
        .execute();
      assert.deepEqual(rows, [{ name: 'last words' }]);
    } finally {
      await own.ctx.database.close();
    }
  });
});
