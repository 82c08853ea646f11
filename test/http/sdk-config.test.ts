// The SDKs' configuration endpoints: remote config (JSON and script), /flags/ and /decide/, with
// the bodies SDKs send, the token checks of capture, and CORS for any origin.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import vm from 'node:vm';
import zlib from 'node:zlib';
import { setupTestApp, TestClock, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { countPersons, eventsOf } from './capture-helpers.ts';

let ctx: TestContext;
let tenant: Tenant;
let token: string;
const NOW = '2026-03-04T05:06:07.000Z';
const ORIGIN = 'https://shop.example.com';

before(async () => {
  ctx = await setupTestApp({ clock: new TestClock(new Date(NOW)) });
  tenant = await makeTenant(ctx.deps.db);
  token = tenant.project.api_token;
});
after(() => ctx.close());

const json = (payload: unknown) => Buffer.from(JSON.stringify(payload));
const base64Form = (payload: unknown) => `data=${encodeURIComponent(json(payload).toString('base64'))}`;
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const JSON_TYPE = { 'content-type': 'application/json' };

function post(url: string, payload: string | Buffer, headers: Record<string, string> = JSON_TYPE) {
  return ctx.app.inject({ method: 'POST', url, payload, headers });
}

const OFF = [
  'sessionRecording',
  'heatmaps',
  'surveys',
  'productTours',
  'conversations',
  'autocaptureExceptions',
  'capturePerformance',
  'captureDeadClicks',
];

describe('remote config', () => {
  test('JSON: the project token, compression capture reads, every optional product off, no flags, no site apps', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/array/${token}/config`,
      headers: { origin: ORIGIN },
    });
    assert.equal(response.statusCode, 200);
    const config = response.json();
    assert.equal(config.token, token);
    for (const product of OFF) assert.equal(config[product], false, product);
    assert.equal(config.hasFeatureFlags, false);
    assert.deepEqual(config.siteApps, []);
    assert.deepEqual(config.supportedCompression, ['gzip', 'gzip-js']);
    assert.deepEqual(config.errorTracking, { autocaptureExceptions: false, suppressionRules: [] });
    assert.deepEqual(config.logs, { captureConsoleLogs: false });
    assert.equal(config.analytics.endpoint, '/i/v0/e/');
    assert.equal(response.headers['access-control-allow-origin'], ORIGIN);
    assert.match(String(response.headers['cache-control']), /max-age=\d+/);
  });

  test('config.js sets window._POSTHOG_REMOTE_CONFIG[token] to the same config, keeping other tokens', async () => {
    const [script, config] = await Promise.all([
      ctx.app.inject({ method: 'GET', url: `/array/${token}/config.js` }),
      ctx.app.inject({ method: 'GET', url: `/array/${token}/config/` }),
    ]);
    assert.equal(script.statusCode, 200);
    assert.match(String(script.headers['content-type']), /^text\/javascript/);
    assert.equal(script.headers['cross-origin-resource-policy'], 'cross-origin');
    const window: Record<string, unknown> = {
      _POSTHOG_REMOTE_CONFIG: { phc_other: { config: { token: 'phc_other' } } },
    };
    vm.runInNewContext(script.body, { window });
    // Objects of the script's realm, compared by their JSON.
    const configs = JSON.parse(JSON.stringify(window._POSTHOG_REMOTE_CONFIG));
    assert.deepEqual(configs[token], { config: config.json(), siteApps: [] });
    assert.deepEqual(configs.phc_other, { config: { token: 'phc_other' } });
  });

  test('an unknown, personal or malformed token: 401 invalid_api_key in the envelope', async () => {
    for (const bad of ['phc_unknown', 'phx_personalkey', '%3Cscript%3E', 'x'.repeat(65)]) {
      for (const suffix of ['config', 'config.js']) {
        const response = await ctx.app.inject({ method: 'GET', url: `/array/${bad}/${suffix}` });
        assert.equal(response.statusCode, 401, `${bad}/${suffix}`);
        assert.deepEqual(Object.keys(response.json()).sort(), ['attr', 'code', 'detail', 'type']);
        assert.equal(response.json().code, 'invalid_api_key');
        assert.equal(response.json().type, 'authentication_error');
      }
    }
  });
});

describe('/flags/', () => {
  const body = { token: 'set below', distinct_id: 'visitor-1', person_properties: { $lib: 'web' }, groups: {} };

  test('v=2: no flags, as flag details, with a request id and the evaluation time', async () => {
    const response = await post('/flags/?v=2', json({ ...body, token }));
    assert.equal(response.statusCode, 200);
    const answer = response.json();
    assert.deepEqual(Object.keys(answer).sort(), ['errorsWhileComputingFlags', 'evaluatedAt', 'flags', 'requestId']);
    assert.deepEqual(answer.flags, {});
    assert.equal(answer.errorsWhileComputingFlags, false);
    assert.match(answer.requestId, /^[0-9a-f-]{36}$/);
    assert.equal(answer.evaluatedAt, Date.parse(NOW));
  });

  test('the bodies SDKs send: JSON, base64 form data=, gzip, gzip inside the form; token or api_key', async () => {
    const payload = { ...body, token };
    const variants: Array<[string, string | Buffer, Record<string, string>]> = [
      ['/flags/?v=2', json(payload), JSON_TYPE],
      ['/flags/?v=2&compression=base64', base64Form(payload), FORM],
      ['/flags/?v=2&compression=gzip-js', zlib.gzipSync(json(payload)), { 'content-type': 'text/plain' }],
      ['/flags/?v=2', `data=${encodeURIComponent(zlib.gzipSync(json(payload)).toString('base64'))}`, FORM],
      ['/flags?v=2', json({ api_key: token, distinct_id: 42 }), JSON_TYPE],
    ];
    for (const [url, payloadBytes, headers] of variants) {
      const response = await post(url, payloadBytes, headers);
      assert.equal(response.statusCode, 200, `${url} ${headers['content-type']}: ${response.body}`);
      assert.deepEqual(response.json().flags, {});
    }
  });

  test('before v=2 (or without v): plain maps, as older SDKs read them', async () => {
    for (const url of ['/flags/', '/flags/?v=1']) {
      const answer = (await post(url, json({ ...body, token }))).json();
      assert.deepEqual(answer.featureFlags, {}, url);
      assert.deepEqual(answer.featureFlagPayloads, {}, url);
      assert.equal(answer.flags, undefined, url);
      assert.equal(answer.errorsWhileComputingFlags, false);
    }
  });

  test('config=true adds the remote config to the flags', async () => {
    const config = (await ctx.app.inject({ method: 'GET', url: `/array/${token}/config` })).json();
    const answer = (await post('/flags/?v=2&config=true', json({ ...body, token }))).json();
    assert.deepEqual(answer.flags, {});
    for (const [key, value] of Object.entries(config)) assert.deepEqual(answer[key], value, key);
  });

  test('token checks as capture: none is 401 missing_api_key, unknown 401 invalid_api_key', async () => {
    const missing = await post('/flags/?v=2', json({ distinct_id: 'a' }));
    assert.equal(missing.statusCode, 401);
    assert.equal(missing.json().code, 'missing_api_key');
    const empty = await post('/flags/?v=2', Buffer.alloc(0));
    assert.equal(empty.statusCode, 401);
    assert.equal(empty.json().code, 'missing_api_key');
    for (const bad of ['phc_unknown', 'phx_personal', { token: 1 }]) {
      const response = await post('/flags/?v=2', json({ token: bad, distinct_id: 'a' }));
      assert.equal(response.statusCode, 401, JSON.stringify(bad));
      assert.equal(response.json().code, 'invalid_api_key');
    }
  });

  test('bad input: 400 in the envelope with the field at fault, never a 500', async () => {
    const cases: Array<[string, string | Buffer, Record<string, string>, string | null]> = [
      ['/flags/?v=2', json({ token }), JSON_TYPE, 'distinct_id'],
      ['/flags/?v=2', json({ token, distinct_id: '  ' }), JSON_TYPE, 'distinct_id'],
      ['/flags/?v=2', json({ token, distinct_id: { id: 1 } }), JSON_TYPE, 'distinct_id'],
      ['/flags/?v=2', json([{ token, distinct_id: 'a' }]), JSON_TYPE, null],
      ['/flags/?v=2', '{"token": ', JSON_TYPE, null],
      ['/flags/?v=2', 'data=***', FORM, 'data'],
      ['/flags/?v=2', Buffer.from([0x1f, 0x8b, 0x08, 0, 1, 2]), { 'content-type': 'text/plain' }, null],
      ['/flags/?v=two', json({ token, distinct_id: 'a' }), JSON_TYPE, 'v'],
    ];
    for (const [url, payload, headers, attr] of cases) {
      const response = await post(url, payload, headers);
      assert.equal(response.statusCode, 400, `${url} ${String(payload)}: ${response.body}`);
      assert.equal(response.json().type, 'validation_error');
      assert.equal(response.json().attr, attr, String(payload));
    }
  });

  test('a body over the limit, or one that inflates past it, is 413', async () => {
    const big = json({ token, distinct_id: 'a', person_properties: { blob: 'x'.repeat(3 * 1024 * 1024) } });
    assert.equal((await post('/flags/?v=2', big)).statusCode, 413);
    const bomb = zlib.gzipSync(Buffer.alloc(5 * 1024 * 1024, 0x20));
    const response = await post('/flags/?v=2', bomb, { 'content-type': 'text/plain' });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().code, 'payload_too_large');
  });

  test('asking for flags writes nothing: no person, no event', async () => {
    const fresh = await makeTenant(ctx.deps.db);
    await post('/flags/?v=2', json({ token: fresh.project.api_token, distinct_id: 'only-asked' }));
    await post('/decide/?v=3', json({ token: fresh.project.api_token, distinct_id: 'only-asked' }));
    assert.equal(await countPersons(ctx.deps.db, fresh.project.id), 0);
    assert.deepEqual(await eventsOf(ctx.deps.db, fresh.project.id), []);
  });

  test('GET is not how SDKs call it: 405 in the envelope', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/flags/?v=2' });
    assert.equal(response.statusCode, 405);
    assert.equal(response.json().code, 'method_not_allowed');
  });
});

describe('/decide/', () => {
  test('the config with every product off, and the flags in the shape of each version', async () => {
    const payload = base64Form({ token, distinct_id: 'old-sdk' });
    const expected: Array<[string, unknown, string[]]> = [
      ['/decide/', [], []],
      ['/decide/?v=2', {}, []],
      ['/decide/?v=3', {}, ['featureFlagPayloads']],
      ['/decide/?v=4', {}, ['featureFlagPayloads', 'flags', 'requestId']],
    ];
    for (const [url, featureFlags, extra] of expected) {
      const response = await post(url, payload, FORM);
      assert.equal(response.statusCode, 200, url);
      const answer = response.json();
      assert.deepEqual(answer.featureFlags, featureFlags, url);
      for (const key of ['featureFlagPayloads', 'flags', 'requestId'])
        assert.equal(key in answer, extra.includes(key), `${url} ${key}`);
      assert.deepEqual(answer.config, { enable_collect_everything: true });
      assert.equal(answer.errorsWhileComputingFlags, false);
      assert.equal(answer.isAuthenticated, false);
      for (const product of OFF) assert.equal(answer[product], false, `${url} ${product}`);
      assert.deepEqual(answer.siteApps, []);
    }
  });

  test('token checks as capture', async () => {
    assert.equal((await post('/decide/?v=3', json({ distinct_id: 'a' }))).json().code, 'missing_api_key');
    assert.equal(
      (await post('/decide/?v=3', json({ token: 'phc_nope', distinct_id: 'a' }))).json().code,
      'invalid_api_key',
    );
  });
});

describe('CORS: any origin, as capture', () => {
  test('preflights are answered for every configuration path, the answers carry the origin', async () => {
    for (const url of ['/flags/?v=2', '/decide/?v=3', `/array/${token}/config`, `/array/${token}/config.js`]) {
      const preflight = await ctx.app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      assert.equal(preflight.statusCode, 204, url);
      assert.equal(preflight.headers['access-control-allow-origin'], ORIGIN);
      assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
      assert.equal(preflight.headers['access-control-allow-headers'], 'content-type');
    }
    const answer = await post('/flags/?v=2', json({ token, distinct_id: 'a' }), {
      ...JSON_TYPE,
      origin: 'http://localhost:3000',
    });
    assert.equal(answer.headers['access-control-allow-origin'], 'http://localhost:3000');
    assert.match(String(answer.headers.vary), /Origin/);
    const refused = await post('/flags/?v=2', json({ token: 'phc_nope', distinct_id: 'a' }), {
      ...JSON_TYPE,
      origin: ORIGIN,
    });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.headers['access-control-allow-origin'], ORIGIN, 'an error is readable by the page too');
  });

  test('the API itself stays without CORS', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/api/projects/',
      headers: { ...tenant.headers, origin: ORIGIN },
    });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['access-control-allow-origin'], undefined);
  });
});
