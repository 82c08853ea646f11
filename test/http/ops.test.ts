import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/db.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

describe('operations endpoints', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('/_health answers 200', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/_health' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('/_ready answers 200 while the database answers and 503 once it is gone', async () => {
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/_ready' })).statusCode, 200);
    const database = await createTestDatabase();
    const app = await buildApp({ ...ctx.deps, db: database.db });
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/_ready' })).statusCode, 200);
      await database.close();
      const res = await app.inject({ method: 'GET', url: '/_ready' });
      assert.equal(res.statusCode, 503);
      assert.deepEqual(res.json(), { status: 'unavailable' });
      assert.equal((await app.inject({ method: 'GET', url: '/_health' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });

  it('/metrics counts requests and their latency by route and status', async () => {
    await ctx.app.inject({ method: 'GET', url: '/api/projects/', headers: tenant.headers });
    await ctx.app.inject({ method: 'GET', url: '/api/projects/' });
    const res = await ctx.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    const text = res.body;
    assert.match(text, /^herd_http_requests_total\{method="GET",route="\/api\/projects\/",status="200"\} 1$/m);
    assert.match(text, /^herd_http_requests_total\{method="GET",route="\/api\/projects\/",status="401"\} 1$/m);
    assert.match(
      text,
      /^herd_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/projects\/",status="200"\} \d+$/m,
    );
    assert.match(
      text,
      /^herd_http_request_duration_seconds_count\{method="GET",route="\/api\/projects\/",status="200"\} 1$/m,
    );
    assert.match(
      text,
      /^herd_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/projects\/",status="200"\} 1$/m,
    );
    assert.match(
      text,
      /^herd_http_request_duration_seconds_sum\{method="GET",route="\/api\/projects\/",status="200"\} \d/m,
    );
    // Buckets are cumulative: each holds at least what the one before it does.
    const buckets = [
      ...text.matchAll(
        /^herd_http_request_duration_seconds_bucket\{le="[^"]+",method="GET",route="\/api\/projects\/",status="401"\} (\d+)$/gm,
      ),
    ].map((match) => Number(match[1]));
    assert.equal(buckets.length, 12);
    assert.deepEqual(
      buckets,
      [...buckets].sort((a, b) => a - b),
    );
    assert.equal(buckets.at(-1), 1);
    assert.match(text, /^# TYPE herd_http_request_duration_seconds histogram$/m);
    assert.match(text, /^process_cpu_user_seconds_total /m);
  });

  it('/api/schema/ is an OpenAPI 3.1 document listing the management paths', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/schema/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    const paths = Object.keys(doc.paths);
    for (const path of [
      '/api/organizations/',
      '/api/organizations/{id}/',
      '/api/organizations/{organization_id}/members/',
      '/api/organizations/{organization_id}/members/{user_uuid}/',
      '/api/projects/',
      '/api/projects/{id}/',
      '/api/personal_api_keys/',
      '/api/personal_api_keys/{id}/',
      '/api/setup/',
    ]) {
      assert.ok(paths.includes(path), `${path} in ${paths.join(', ')}`);
    }
    assert.ok(doc.paths['/api/organizations/{organization_id}/members/'].post.requestBody);
    assert.ok(doc.paths['/api/personal_api_keys/'].get.responses['200']);
    assert.ok(!paths.includes('/metrics'), 'operational routes stay out');
  });

  it('/api/schema/docs/ serves the interactive page', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/schema/docs/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.match(res.body, /swagger/i);
  });

  it('sends security headers and a request id', async () => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/projects/',
      headers: { ...tenant.headers, 'x-request-id': 'req-123' },
    });
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.ok(res.headers['strict-transport-security']);
    assert.ok(res.headers['x-frame-options']);
    assert.equal(res.headers['x-request-id'], 'req-123');
    const generated = await ctx.app.inject({ method: 'GET', url: '/_health' });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });
});
