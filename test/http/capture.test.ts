import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { setupTestApp, TestClock, type TestContext } from '../helpers/app.ts';
import { countPersons, eventsOf, personByDistinctId, post } from './capture-helpers.ts';

const NOW = '2026-06-01T12:00:00.000Z';
let ctx: TestContext;
let tenant: Tenant;
let token: string;

before(async () => {
  ctx = await setupTestApp({ clock: new TestClock(new Date(NOW)) });
  tenant = await makeTenant(ctx.deps.db);
  token = tenant.project.api_token;
});
after(() => ctx.close());

const eventsNamed = async (name: string) =>
  (await eventsOf(ctx.deps.db, tenant.project.id)).filter((event) => event.event === name);
const base64Form = (payload: unknown, gzip = false) => {
  const json = Buffer.from(JSON.stringify(payload));
  return `data=${encodeURIComponent((gzip ? zlib.gzipSync(json) : json).toString('base64'))}${gzip ? '&compression=gzip-js' : ''}`;
};

describe('capture payload shapes', () => {
  test('batch object, gzipped, as posthog-node sends it', async () => {
    const response = await post(
      ctx.app,
      '/batch/',
      { api_key: token, batch: [{ event: 'shape batch', distinct_id: 'shape-1', properties: { a: 1 } }], sent_at: NOW },
      { gzip: true, headers: { 'content-encoding': 'gzip' } },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(response.json(), { status: 'Ok' });
    const [event] = await eventsNamed('shape batch');
    assert.equal(event.distinct_id, 'shape-1');
    assert.equal(event.properties.a, 1);
    assert.equal(event.properties.$sent_at, NOW);
    assert.ok(event.person_id);
  });

  test('gzip is recognised by its magic bytes whatever the content type says', async () => {
    const body = zlib.gzipSync(
      JSON.stringify({ api_key: token, batch: [{ event: 'shape sniffed', distinct_id: 'shape-2' }] }),
    );
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/batch?compression=gzip-js',
      headers: { 'content-type': 'text/plain' },
      payload: body,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await eventsNamed('shape sniffed')).length, 1);
  });

  test('an array of events with the token in their properties', async () => {
    const response = await post(ctx.app, '/e/', [
      { event: 'shape array', distinct_id: 'shape-3', properties: { token } },
      { event: 'shape array', distinct_id: 'shape-3', properties: { token } },
    ]);
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await eventsNamed('shape array')).length, 2);
  });

  test('a single event on every path, with or without the trailing slash', async () => {
    for (const path of ['/i/v0/e/', '/i/v0/e', '/capture/', '/capture', '/e', '/batch']) {
      const response = await post(ctx.app, path, {
        token,
        event: 'shape single',
        distinct_id: 'shape-4',
        properties: { path },
      });
      assert.equal(response.statusCode, 200, `${path}: ${response.body}`);
    }
    assert.equal((await eventsNamed('shape single')).length, 6);
  });

  test('an empty api_key does not hide the token beside it', async () => {
    const single = await post(ctx.app, '/e/', { api_key: '', token, event: 'shape empty key', distinct_id: 'shape-5' });
    assert.equal(single.statusCode, 200, single.body);
    const array = await post(ctx.app, '/e/', [
      { event: 'shape empty key', distinct_id: 'shape-5', api_key: '', properties: { token } },
    ]);
    assert.equal(array.statusCode, 200, array.body);
    assert.equal((await eventsNamed('shape empty key')).length, 2);
  });

  test('the client address is recorded as $ip unless the event carries one', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/batch/',
      remoteAddress: '203.0.113.7',
      headers: { 'content-type': 'application/json' },
      payload: {
        api_key: token,
        batch: [
          { event: 'shape ip', distinct_id: 'ip-1' },
          { event: 'shape ip', distinct_id: 'ip-1', properties: { $ip: '198.51.100.1' } },
        ],
      },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      (await eventsNamed('shape ip')).map((event) => event.properties.$ip),
      ['203.0.113.7', '198.51.100.1'],
    );
  });

  test('form posts with base64 data, plain and gzip-js', async () => {
    for (const gzip of [false, true]) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/e/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: base64Form(
          { api_key: token, event: 'shape form', distinct_id: 'shape-5', properties: { gzip } },
          gzip,
        ),
      });
      assert.equal(response.statusCode, 200, response.body);
    }
    assert.deepEqual(
      (await eventsNamed('shape form')).map((event) => event.properties.gzip),
      [false, true],
    );
  });

  test('a body without a content type is still read', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/batch/',
      payload: Buffer.from(JSON.stringify({ api_key: token, batch: [{ event: 'shape bare', distinct_id: 'x' }] })),
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  test('distinct ids: numbers become text, $distinct_id and properties.distinct_id are read, over 200 characters are cut', async () => {
    const long = 'L'.repeat(250);
    const response = await post(ctx.app, '/batch/', {
      api_key: token,
      batch: [
        { event: 'shape ids', distinct_id: 23 },
        { event: 'shape ids', $distinct_id: 'dollar-id' },
        { event: 'shape ids', properties: { distinct_id: 'prop-id' } },
        { event: 'shape ids', distinct_id: long },
      ],
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(
      (await eventsNamed('shape ids')).map((event) => event.distinct_id),
      ['23', 'dollar-id', 'prop-id', 'L'.repeat(200)],
    );
    assert.ok(await personByDistinctId(ctx.deps.db, tenant.project.id, 'L'.repeat(200)));
  });

  test('NUL characters and unpaired surrogates are stored as U+FFFD, never a server error', async () => {
    const raw = `{"api_key": "${token}", "batch": [{"event": "odd\\u0000text", "distinct_id": "odd\\u0000id", "properties": {"k\\u0000": "v\\ud800", "$set": {"n\\u0000": "\\u0000"}}}]}`;
    const response = await post(ctx.app, '/batch/', raw);
    assert.equal(response.statusCode, 200, response.body);
    const [event] = await eventsNamed('odd\uFFFDtext');
    assert.equal(event.distinct_id, 'odd\uFFFDid');
    assert.equal(event.properties['k\uFFFD'], 'v\uFFFD');
    assert.deepEqual((await personByDistinctId(ctx.deps.db, tenant.project.id, 'odd\uFFFDid'))?.properties, {
      'n\uFFFD': '\uFFFD',
      $creator_event_uuid: event.uuid,
    });
  });

  test('odd but valid values are accepted: huge offsets, far dates, deep and unicode properties', async () => {
    const response = await post(ctx.app, '/batch/', {
      api_key: token,
      batch: [
        { event: 'odd values', distinct_id: 'odd-2', offset: 1e20 },
        { event: 'odd values', distinct_id: 'odd-2', offset: -1e20 },
        { event: 'odd values', distinct_id: 'odd-2', timestamp: '0000-01-01T00:00:00Z' },
        {
          event: 'odd values',
          distinct_id: 'odd-2',
          properties: { nested: { a: [{ b: [1, 2, { c: '日本' }] }] }, emoji: '😀' },
        },
      ],
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await eventsNamed('odd values')).length, 4);
  });
});

describe('capture uuids and timestamps', () => {
  test('a given uuid is kept and a retried batch stores nothing twice', async () => {
    const uuid = crypto.randomUUID();
    const payload = { api_key: token, batch: [{ event: 'uuid kept', distinct_id: 'uuid-1', uuid, $set: { n: 1 } }] };
    assert.equal((await post(ctx.app, '/batch/', payload)).statusCode, 200);
    const before = await personByDistinctId(ctx.deps.db, tenant.project.id, 'uuid-1');
    assert.equal((await post(ctx.app, '/batch/', payload)).statusCode, 200);
    const events = await eventsNamed('uuid kept');
    assert.deepEqual(
      events.map((event) => event.uuid),
      [uuid],
    );
    assert.equal((await personByDistinctId(ctx.deps.db, tenant.project.id, 'uuid-1'))?.version, before?.version);
  });

  test('a batch sent again while the first is still being written is stored once', async () => {
    const batch = ['race-1', 'race-2', 'race-3'].map((distinctId) => ({
      event: 'uuid race',
      distinct_id: distinctId,
      uuid: crypto.randomUUID(),
      $set: { n: 1 },
    }));
    const statuses = await Promise.all(
      Array.from({ length: 4 }, () =>
        post(ctx.app, '/batch/', { api_key: token, batch }).then((res) => res.statusCode),
      ),
    );
    assert.deepEqual(statuses, [200, 200, 200, 200]);
    const events = await eventsNamed('uuid race');
    assert.deepEqual(events.map((event) => event.uuid).sort(), batch.map((event) => event.uuid).sort());
    for (const distinctId of ['race-1', 'race-2', 'race-3'])
      assert.equal((await personByDistinctId(ctx.deps.db, tenant.project.id, distinctId))?.version, 0);
  });

  test('the same uuid sent by another distinct id is another event', async () => {
    // An event is identified by its distinct id and uuid (the key of events, migration 0009).
    const uuid = crypto.randomUUID();
    for (const distinctId of ['twin-a', 'twin-b', 'twin-a']) {
      assert.equal(
        (
          await post(ctx.app, '/batch/', {
            api_key: token,
            batch: [{ event: 'uuid twin', distinct_id: distinctId, uuid }],
          })
        ).statusCode,
        200,
      );
    }
    const events = await eventsNamed('uuid twin');
    assert.deepEqual(events.map((event) => [event.distinct_id, event.uuid]).sort(), [
      ['twin-a', uuid],
      ['twin-b', uuid],
    ]);
  });

  test('an absent or empty uuid is generated', async () => {
    assert.equal(
      (
        await post(ctx.app, '/batch/', {
          api_key: token,
          batch: [
            { event: 'uuid new', distinct_id: 'u', uuid: '' },
            { event: 'uuid new', distinct_id: 'u' },
          ],
        })
      ).statusCode,
      200,
    );
    const events = await eventsNamed('uuid new');
    assert.equal(new Set(events.map((event) => event.uuid)).size, 2);
  });

  test('timestamps: clock skew corrected by sent_at, offset, future clamped, invalid replaced by now', async () => {
    const response = await post(ctx.app, '/batch/', {
      api_key: token,
      sent_at: '2026-06-01T11:00:00.000Z',
      batch: [
        { event: 'time skew', distinct_id: 't', timestamp: '2026-06-01T10:59:00.000Z' },
        { event: 'time offset', distinct_id: 't', offset: 60_000 },
        {
          event: 'time future',
          distinct_id: 't',
          timestamp: '2026-06-05T00:00:00.000Z',
          properties: { $ignore_sent_at: true },
        },
        { event: 'time invalid', distinct_id: 't', timestamp: 'yesterday-ish' },
        { event: 'time none', distinct_id: 't' },
      ],
    });
    assert.equal(response.statusCode, 200, response.body);
    const at = async (name: string) => (await eventsNamed(name))[0].timestamp.toISOString();
    assert.equal(await at('time skew'), '2026-06-01T11:59:00.000Z');
    assert.equal(await at('time offset'), '2026-06-01T11:59:00.000Z');
    assert.equal(await at('time future'), NOW);
    assert.equal(await at('time invalid'), NOW);
    assert.equal(await at('time none'), NOW);
  });
});

describe('capture errors', () => {
  // Where herd's capture token is (issue 12: it pointed to "PostHog project settings").
  const TOKEN_HINT =
    'The project API key (phc_…) is the project token `herd bootstrap` printed (project_api_key), or the api_token of the project in GET /api/projects/.';
  const errorOf = (response: { statusCode: number; json(): unknown }) => ({
    status: response.statusCode,
    ...(response.json() as object),
  });

  test('no token: 401 missing_api_key; unknown or personal token: 401 invalid_api_key', async () => {
    const missing = await post(ctx.app, '/batch/', { batch: [{ event: 'e', distinct_id: 'd' }] });
    assert.deepEqual(errorOf(missing), {
      status: 401,
      type: 'authentication_error',
      code: 'missing_api_key',
      detail: `API key not provided. ${TOKEN_HINT}`,
      attr: null,
    });
    for (const bad of ['phc_unknown', 'phx_personal', 'x'.repeat(65)]) {
      const response = await post(ctx.app, '/batch/', { api_key: bad, batch: [{ event: 'e', distinct_id: 'd' }] });
      assert.deepEqual(errorOf(response), {
        status: 401,
        type: 'authentication_error',
        code: 'invalid_api_key',
        detail: `Project API key invalid. ${TOKEN_HINT}`,
        attr: null,
      });
    }
  });

  test('malformed JSON, a bad gzip body, a wrong shape and too deep nesting are 400', async () => {
    const tooDeep = `{"api_key": "${token}", "batch": [{"event": "e", "distinct_id": "d", "properties": {"p": ${'['.repeat(500)}${']'.repeat(500)}}}]}`;
    for (const payload of ['{"api_key": ', Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2]), '"text"', '[]', tooDeep]) {
      const response = await ctx.app.inject({
        method: 'POST',
        url: '/batch/',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().type, 'validation_error');
    }
  });

  test('an invalid event names the field at fault and nothing of the request is stored', async () => {
    const cases: Array<[unknown, string]> = [
      [{ event: 'reject', properties: {} }, 'batch.3.distinct_id'],
      [{ event: '', distinct_id: 'd' }, 'batch.3.event'],
      [{ distinct_id: 'd' }, 'batch.3.event'],
      [{ event: 'reject', distinct_id: 'd', uuid: 'not-a-uuid' }, 'batch.3.uuid'],
      [{ event: 'reject', distinct_id: 'd', properties: [1] }, 'batch.3.properties'],
      [{ event: 'reject', distinct_id: 'd', timestamp: 5 }, 'batch.3.timestamp'],
      [{ event: 'reject', distinct_id: 'd', $set: 'x' }, 'batch.3.$set'],
      ['not an event', 'batch.3'],
    ];
    const personsBefore = await countPersons(ctx.deps.db, tenant.project.id);
    for (const [bad, attr] of cases) {
      const batch = [0, 1, 2].map((i) => ({ event: 'reject', distinct_id: `reject-${i}`, $set: { i } }));
      const response = await post(ctx.app, '/batch/', { api_key: token, batch: [...batch, bad] });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(response.json().attr, attr);
    }
    assert.equal((await eventsNamed('reject')).length, 0);
    assert.equal(await countPersons(ctx.deps.db, tenant.project.id), personsBefore);
    const single = await post(ctx.app, '/i/v0/e/', { token, event: 'reject' });
    assert.equal(single.json().attr, 'distinct_id');
    const array = await post(ctx.app, '/e/', [
      { token, event: 'reject', distinct_id: 'a' },
      { token, event: 'reject' },
    ]);
    assert.equal(array.json().attr, '1.distinct_id');
  });

  test('an empty body is 400 and another method is 405, both in the envelope', async () => {
    const empty = await ctx.app.inject({
      method: 'POST',
      url: '/batch/',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().type, 'validation_error');
    const get = await ctx.app.inject({ method: 'GET', url: '/batch/' });
    assert.equal(get.statusCode, 405);
    assert.equal(get.json().code, 'method_not_allowed');
  });

  test('arbitrary JSON never gets a server error', async () => {
    const json = fc.jsonValue({ maxDepth: 4 });
    const event = fc.record(
      {
        event: fc.oneof(fc.string(), json),
        distinct_id: json,
        properties: json,
        uuid: json,
        timestamp: json,
        offset: json,
        $set: json,
        $set_once: json,
        $unset: json,
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(json, fc.array(event, { maxLength: 4 })), fc.boolean(), async (items, asBatch) => {
        const payload = asBatch ? { api_key: token, batch: items } : items;
        const response = await post(ctx.app, '/batch/', payload);
        assert.ok([200, 400, 401].includes(response.statusCode), `${response.statusCode} ${response.body}`);
        if (response.statusCode !== 200)
          assert.ok(['validation_error', 'authentication_error'].includes(response.json().type));
      }),
      { numRuns: 150 },
    );
  });

  test('arbitrary well-formed events of every kind are stored, never a server error', async () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const ids = fc.constantFrom('fuzz-a', 'fuzz-b', 'fuzz-c', 'anonymous', 'null', '0', '');
    const special = fc.record(
      {
        $set: json,
        $set_once: json,
        $unset: json,
        $anon_distinct_id: fc.oneof(ids, json),
        alias: fc.oneof(ids, json),
        $process_person_profile: fc.oneof(fc.boolean(), json),
      },
      { requiredKeys: [] },
    );
    const event = fc.record({
      event: fc.constantFrom(
        '$identify',
        '$create_alias',
        '$merge_dangerously',
        '$groupidentify',
        '$set',
        '$delete_person_property',
        'view',
      ),
      distinct_id: ids.filter((id) => id !== ''),
      properties: fc.tuple(special, fc.dictionary(fc.string(), json, { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a })),
    });
    let stored = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 6 }), async (batch) => {
        const response = await post(ctx.app, '/batch/', { api_key: token, batch });
        assert.ok([200, 400].includes(response.statusCode), `${response.statusCode} ${response.body}`);
        if (response.statusCode === 200) stored++;
      }),
      { numRuns: 150 },
    );
    assert.ok(stored > 100, `only ${stored} batches were stored`);
  });

  test('events carrying different tokens are refused', async () => {
    const response = await post(ctx.app, '/e/', [
      { event: 'e', distinct_id: 'd', properties: { token } },
      { event: 'e', distinct_id: 'd', properties: { token: 'phc_other' } },
    ]);
    assert.equal(response.statusCode, 400);
  });

  test('body limits: 2 MiB on single-event paths, 20 MiB on /batch/, 413 envelope', async () => {
    const filler = 'x'.repeat(3 * 1024 * 1024);
    const big = { api_key: token, batch: [{ event: 'limit big', distinct_id: 'l', properties: { filler } }] };
    const tooBig = await post(ctx.app, '/e/', big);
    assert.equal(tooBig.statusCode, 413);
    assert.deepEqual(
      { type: tooBig.json().type, code: tooBig.json().code },
      { type: 'invalid_request', code: 'payload_too_large' },
    );
    assert.equal((await post(ctx.app, '/batch/', big)).statusCode, 200);
    const huge = await post(ctx.app, '/batch/', {
      api_key: token,
      batch: [{ event: 'limit huge', distinct_id: 'l', properties: { filler: 'x'.repeat(21 * 1024 * 1024) } }],
    });
    assert.equal(huge.statusCode, 413);
  });

  test('the limit holds after decompression: a gzip bomb is 413', async () => {
    const bomb = zlib.gzipSync(`{"api_key": "${token}", "batch": [], "pad": "${' '.repeat(3 * 1024 * 1024)}"}`);
    assert.ok(bomb.length < 100_000);
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/e/',
      headers: { 'content-type': 'application/json' },
      payload: bomb,
    });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().code, 'payload_too_large');
  });

  test('the API keeps its own 1 MiB JSON limit', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/api/organizations/',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    assert.equal(response.statusCode, 413);
  });
});

describe('capture CORS', () => {
  test('preflight on capture paths mirrors the origin and answers Ok', async () => {
    const response = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/batch/',
      headers: {
        origin: 'https://shop.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    assert.equal(response.statusCode, 200);
    assert.deepEqual(response.json(), { status: 'Ok' });
    assert.equal(response.headers['access-control-allow-origin'], 'https://shop.example');
    assert.equal(response.headers['access-control-allow-credentials'], 'true');
    const captured = await post(
      ctx.app,
      '/e/',
      { token, event: 'cors', distinct_id: 'c' },
      { headers: { origin: 'https://shop.example' } },
    );
    assert.equal(captured.headers['access-control-allow-origin'], 'https://shop.example');
  });

  test('the API answers no CORS', async () => {
    const get = await ctx.app.inject({
      method: 'GET',
      url: '/api/organizations/',
      headers: { ...tenant.headers, origin: 'https://shop.example' },
    });
    assert.equal(get.headers['access-control-allow-origin'], undefined);
    const preflight = await ctx.app.inject({
      method: 'OPTIONS',
      url: '/api/organizations/',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    assert.notEqual(preflight.statusCode, 200);
  });
});

describe('indexed text of any length', () => {
  test('a long random event name is cut to 200 characters and a long random e-mail is stored and filterable', async () => {
    const name = crypto.randomBytes(3000).toString('base64');
    const email = `${crypto.randomBytes(3000).toString('base64')}@example.com`;
    const response = await post(ctx.app, '/capture/', {
      api_key: token,
      event: name,
      distinct_id: 'long-text',
      properties: { $set: { email } },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal((await eventsNamed(name.slice(0, 200))).length, 1);
    const person = await personByDistinctId(ctx.deps.db, tenant.project.id, 'long-text');
    assert.equal(person?.properties.email, email);
    const listed = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${tenant.project.id}/persons/?email=${encodeURIComponent(email)}`,
      headers: tenant.headers,
    });
    assert.equal(listed.statusCode, 200, listed.body);
    assert.deepEqual(
      listed.json().results.map((p: { uuid: string }) => p.uuid),
      [person?.uuid],
    );
  });
});
