// Secrets never reach the log, API responses carry the security headers, CORS is confined to
// capture, and a key is compared by its digest: a near miss is as wrong as a far one.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import type { App } from '../../src/http/route-module.ts';
import { createLogger } from '../../src/log.ts';
import { digestsEqual, hashApiKey } from '../../src/modules/access/api-key.tokens.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { bearer, makeTenant, type Tenant } from '../helpers/factories.ts';
import { CAPTURE_PATHS, captureBatch } from './seed.ts';

/** The same key with one character replaced: same length, same prefix, other digest. */
function nearMiss(key: string, index: number): string {
  const replacement = key[index] === 'A' ? 'B' : 'A';
  return key.slice(0, index) + replacement + key.slice(index + 1);
}

describe('secrets and headers', () => {
  let database: TestDatabase;
  let app: App;
  let tenant: Tenant;
  let logged = '';
  const secrets: string[] = [];

  before(async () => {
    database = await createTestDatabase();
    const destination = new Writable({
      write(chunk, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const log = createLogger('trace', destination);
    app = await buildApp({ db: database.db, config: defaultConfig(), clock: { now: () => new Date() }, log });
    tenant = await makeTenant(database.db);
    secrets.push(tenant.key, hashApiKey(tenant.key));
  });
  after(async () => {
    await app.close();
    await database.close();
  });

  it('never logs a key or its digest, whatever the request does with it', async () => {
    const org = `/api/organizations/${tenant.organization.id}/`;
    const wrong = nearMiss(tenant.key, 10);
    secrets.push(wrong, hashApiKey(wrong));
    const requests = [
      { method: 'GET', url: '/api/organizations/', headers: tenant.headers },
      { method: 'GET', url: org, headers: { authorization: `bearer ${tenant.key}` } },
      { method: 'GET', url: '/api/organizations/', headers: bearer(wrong) },
      { method: 'GET', url: `/api/organizations/?personal_api_key=${tenant.key}` },
      { method: 'GET', url: `/api/organizations/?limit=abc&token=${tenant.key}`, headers: tenant.headers },
      {
        method: 'POST',
        url: '/api/organizations/',
        headers: { ...tenant.headers, 'content-type': 'application/json' },
        payload: `{"name": "${tenant.key}`,
      },
      {
        method: 'POST',
        url: '/api/organizations/',
        headers: tenant.headers,
        payload: { personal_api_key: tenant.key },
      },
      { method: 'PUT', url: '/api/organizations/', headers: tenant.headers },
      { method: 'GET', url: `/nope/${tenant.key}`, headers: tenant.headers },
      { method: 'POST', url: '/batch/', payload: { api_key: tenant.key, batch: [] } },
    ] as const;
    for (const request of requests)
      await app.inject({ ...request, payload: 'payload' in request ? request.payload : undefined });

    // A key created through the API is shown once in the response, never in the log.
    const created = await app.inject({
      method: 'POST',
      url: '/api/personal_api_keys/',
      headers: tenant.headers,
      payload: { label: 'secret test', scopes: ['*'] },
    });
    if (created.statusCode === 201) secrets.push(created.json().value, hashApiKey(created.json().value));

    assert.ok(logged.includes('incoming request'), 'the log captured the requests');
    assert.ok(logged.split('\n').length > requests.length, 'one line per request at least');
    for (const secret of secrets) assert.ok(!logged.includes(secret), `the log contains ${secret.slice(0, 8)}…`);
    assert.ok(!logged.includes(tenant.key.slice(4)), 'not even the key without its prefix');
  });

  it('keeps the bound values of a failed statement out of the log', () => {
    let line = '';
    const destination = new Writable({
      write(chunk, _encoding, done) {
        line += chunk.toString();
        done();
      },
    });
    const failure = Object.assign(new Error('index row size exceeds btree maximum'), {
      query: 'select 1 where x = $1',
      params: [hashApiKey(tenant.key), 'pii@example.com'],
    });
    createLogger('error', destination).error({ err: failure }, 'unexpected error');
    assert.ok(line.includes('index row size'), 'the cause is logged');
    assert.ok(!line.includes(hashApiKey(tenant.key)) && !line.includes('pii@example.com'), line);
  });

  it('answers a wrong key of the same length, or a near miss anywhere in it, with 401', async () => {
    for (const index of [4, 20, tenant.key.length - 1]) {
      const res = await app.inject({
        method: 'GET',
        url: '/api/organizations/',
        headers: bearer(nearMiss(tenant.key, index)),
      });
      assert.equal(res.statusCode, 401);
      assert.deepEqual(res.json(), {
        type: 'authentication_error',
        code: 'authentication_failed',
        detail: 'Personal API key found in request Authorization header is invalid.',
        attr: null,
      });
    }
    for (const key of [
      tenant.key.slice(0, -1),
      `${tenant.key}x`,
      tenant.key.toUpperCase(),
      hashApiKey(tenant.key),
      `phx_${'0'.repeat(10_000)}`,
    ]) {
      const res = await app.inject({ method: 'GET', url: '/api/organizations/', headers: bearer(key) });
      assert.equal(res.statusCode, 401, key.slice(0, 12));
    }
    const ok = await app.inject({ method: 'GET', url: '/api/organizations/', headers: tenant.headers });
    assert.equal(ok.statusCode, 200);
  });

  it('compares digests in constant time and only equal digests match', () => {
    const digest = hashApiKey(tenant.key);
    assert.equal(digestsEqual(digest, hashApiKey(tenant.key)), true);
    assert.equal(digestsEqual(digest, hashApiKey(nearMiss(tenant.key, 5))), false);
    assert.equal(digestsEqual(digest, digest.slice(0, -2)), false);
    assert.equal(digestsEqual(digest, ''), false);
    assert.equal(digestsEqual(digest, 'zz'.repeat(32)), false);
    // A digest that differs in its first or its last byte is refused alike.
    const flip = (at: number) => digest.slice(0, at) + (digest[at] === '0' ? '1' : '0') + digest.slice(at + 1);
    assert.equal(digestsEqual(digest, flip(0)), false);
    assert.equal(digestsEqual(digest, flip(63)), false);
  });

  it('authenticates through the constant-time comparison', async (t) => {
    const spy = t.mock.method(crypto, 'timingSafeEqual');
    const ok = await app.inject({ method: 'GET', url: '/api/organizations/', headers: tenant.headers });
    assert.equal(ok.statusCode, 200);
    assert.ok(spy.mock.callCount() >= 1, 'authenticate compared the digests with crypto.timingSafeEqual');
  });

  it('sends the security headers on API responses, errors included', async () => {
    const responses = [
      await app.inject({ method: 'GET', url: '/api/organizations/', headers: tenant.headers }),
      await app.inject({ method: 'GET', url: '/api/organizations/' }),
      await app.inject({ method: 'GET', url: '/api/nope/', headers: tenant.headers }),
      await app.inject({ method: 'PUT', url: '/api/organizations/', headers: tenant.headers }),
      await app.inject({ method: 'GET', url: '/api/schema/' }),
    ];
    for (const res of responses) {
      assert.equal(res.headers['x-content-type-options'], 'nosniff', res.body);
      assert.equal(res.headers['x-frame-options'], 'SAMEORIGIN');
      assert.match(String(res.headers['strict-transport-security']), /max-age=\d+/);
      assert.equal(res.headers['referrer-policy'], 'no-referrer');
      assert.equal(res.headers['x-dns-prefetch-control'], 'off');
      assert.equal(res.headers['x-permitted-cross-domain-policies'], 'none');
      assert.equal(res.headers['x-powered-by'], undefined);
      assert.ok(res.headers['x-request-id']);
    }
  });

  it('sends no CORS headers on the API, to a simple request or a preflight', async () => {
    const origin = 'https://evil.example';
    for (const url of [
      '/api/organizations/',
      `/api/organizations/${tenant.organization.id}/`,
      `/api/projects/${tenant.project.id}/persons/`,
    ]) {
      const simple = await app.inject({ method: 'GET', url, headers: { ...tenant.headers, origin } });
      assert.equal(simple.headers['access-control-allow-origin'], undefined, url);
      assert.equal(simple.headers['access-control-allow-credentials'], undefined, url);
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization',
        },
      });
      assert.equal(preflight.headers['access-control-allow-origin'], undefined, url);
      assert.equal(preflight.headers['access-control-allow-methods'], undefined, url);
      assert.ok(
        preflight.statusCode >= 400 && preflight.statusCode < 500,
        `${url} preflight → ${preflight.statusCode}`,
      );
    }
  });

  it('allows any origin on every capture route', async () => {
    const origin = 'https://customer-site.example';
    for (const path of CAPTURE_PATHS) {
      const res = await app.inject({
        method: 'POST',
        url: path,
        headers: { origin },
        payload: captureBatch(tenant.project.api_token, [{ event: 'cors', distinct_id: 'c' }]),
      });
      assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
      assert.ok(res.headers['access-control-allow-origin'], `${path} allows the origin`);
      const preflight = await app.inject({
        method: 'OPTIONS',
        url: path,
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      assert.ok(preflight.statusCode < 300, `${path} preflight → ${preflight.statusCode}`);
      assert.ok(preflight.headers['access-control-allow-origin'], `${path} preflight allows the origin`);
    }
  });
});
