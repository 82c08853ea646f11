// The bound on heavy requests in flight: one key's flood of property-filter scans waits or is
// refused while another organization's retrieves and scans go on.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { LightMyRequestResponse } from 'fastify';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant, type TestPerson } from '../helpers/factories.ts';
import { enc } from './persons.fixtures.ts';

const SCAN = enc([{ key: 'email', value: '^user1.*7@', operator: 'regex', type: 'person' }]);

describe('heavy requests in flight', () => {
  let ctx: TestContext;
  let a: Tenant;
  let b: Tenant;
  let bPerson: TestPerson;

  before(async () => {
    ctx = await setupTestApp({ config: { heavyRequests: { perKey: 1, perProject: 1, perProcess: 2, queueLength: 3, queueWaitMs: 30_000 } } });
    a = await makeTenant(ctx.deps.db);
    b = await makeTenant(ctx.deps.db);
    await sql`insert into persons (team_id, uuid, properties, created_at)
      select ${a.project.id}::integer, gen_random_uuid(), jsonb_build_object('email', 'user' || g || '@example.com'), now()
      from generate_series(1, 5000) g`.execute(ctx.deps.db);
    bPerson = await makePerson(ctx.deps.db, b.project.id, { properties: { email: 'b@example.com' } });
  });
  after(() => ctx.close());

  const scan = (tenant: Tenant) => ctx.app.inject({ method: 'GET', url: `/api/projects/${tenant.project.id}/persons/?properties=${SCAN}`, headers: tenant.headers });
  const retrieve = () => ctx.app.inject({ method: 'GET', url: `/api/projects/${b.project.id}/persons/${bPerson.id}/`, headers: b.headers });

  function assertRefusal(response: LightMyRequestResponse) {
    assert.equal(response.headers['retry-after'], '1');
    const body = response.json();
    assert.deepEqual({ type: body.type, code: body.code, attr: body.attr }, { type: 'throttled_error', code: 'concurrency_limited', attr: null });
    assert.match(body.detail, /personal API key has 1 heavy requests/);
  }

  it('a flood of one key waits or is refused while another organization keeps reading', async () => {
    const flood = Promise.all(Array.from({ length: 10 }, () => scan(a)));
    const reads = Promise.all(Array.from({ length: 10 }, () => retrieve()));
    // Another organization's own scan takes the second slot of the process at once.
    const other = scan(b);
    const [flooded, read, theirs] = await Promise.all([flood, reads, other]);

    for (const response of read) assert.equal(response.statusCode, 200, response.body);
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.equal(theirs.headers['server-timing'], undefined, 'B never waited behind A');

    const refused = flooded.filter((response) => response.statusCode === 429);
    const waited = flooded.filter((response) => response.statusCode === 200 && String(response.headers['server-timing']).startsWith('queue;dur='));
    const served = flooded.filter((response) => response.statusCode === 200);
    assert.equal(refused.length + served.length, flooded.length, flooded.map((response) => response.statusCode).join(','));
    // One runs, three wait (the queue of a key), the other six are refused at once.
    assert.ok(refused.length > 0 && waited.length > 0, `refused ${refused.length}, waited ${waited.length}`);
    for (const response of refused) assertRefusal(response);
    const counts = new Set(served.map((response) => response.json().count));
    assert.equal(counts.size, 1, 'every served scan counts the same persons');
  });

  it('light requests of the flooding key itself are not held', async () => {
    const flood = Promise.all(Array.from({ length: 6 }, () => scan(a)));
    const own = await ctx.app.inject({ method: 'GET', url: `/api/projects/${a.project.id}/persons/?limit=1`, headers: a.headers });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.headers['server-timing'], undefined);
    const responses = await flood;
    assert.ok(responses.some((response) => response.statusCode === 429), 'the flood was refused in part');
  });

  it('a request rejected before its slot (bad filter) takes none', async () => {
    const bad = await ctx.app.inject({ method: 'GET', url: `/api/projects/${a.project.id}/persons/?properties=not-json`, headers: a.headers });
    assert.equal(bad.statusCode, 400, bad.body);
    const after = await scan(a);
    assert.equal(after.statusCode, 200, after.body);
    assert.equal(after.headers['server-timing'], undefined, 'a free slot, no wait');
  });
});
