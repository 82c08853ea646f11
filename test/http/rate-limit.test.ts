import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/factories.ts';

const BURST = 480;

async function hit(ctx: TestContext, headers: Record<string, string>, times: number) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i += 1) {
    statuses.push((await ctx.app.inject({ method: 'GET', url: '/api/projects/', headers })).statusCode);
  }
  return statuses;
}

describe('rate limits (on)', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp({ config: { rateLimit: true } });
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('throttles a key past 480 requests a minute, with Retry-After; other keys are unaffected', async () => {
    const statuses = await hit(ctx, tenant.headers, BURST);
    assert.deepEqual([...new Set(statuses)], [200]);

    const res = await ctx.app.inject({ method: 'GET', url: '/api/projects/', headers: tenant.headers });
    assert.equal(res.statusCode, 429);
    const body = res.json();
    assert.equal(body.type, 'throttled_error');
    assert.equal(body.code, 'throttled');
    assert.equal(body.attr, null);
    const match = /^Request was throttled\. Expected available in (\d+) seconds?\.$/.exec(body.detail);
    assert.ok(match, body.detail);
    const seconds = Number(match[1]);
    assert.ok(seconds >= 1 && seconds <= 60, body.detail);
    assert.equal(res.headers['retry-after'], String(seconds));

    // Another key of the same user has its own bucket.
    const otherKey = bearer(await makeKey(ctx.deps.db, tenant.owner));
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/projects/', headers: otherKey })).statusCode, 200);
  });

  it('answers 401 without a key, before any limit applies', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/projects/' });
    assert.equal(res.statusCode, 401);
  });
});

describe('rate limits (off)', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  before(async () => {
    ctx = await setupTestApp({ config: { rateLimit: false } });
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  it('never answers 429', async () => {
    const statuses = await hit(ctx, tenant.headers, BURST + 20);
    assert.deepEqual([...new Set(statuses)], [200]);
  });
});
