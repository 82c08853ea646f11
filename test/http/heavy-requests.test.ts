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
    ctx = await setupTestApp({
      config: { heavyRequests: { perKey: 1, perProject: 1, perProcess: 2, queueLength: 3, queueWaitMs: 30_000 } },
    });
    a = await makeTenant(ctx.deps.db);
    b = await makeTenant(ctx.deps.db);
    await sql`insert into persons (team_id, uuid, properties, created_at)
      select ${a.project.id}::integer, gen_random_uuid(), jsonb_build_object('email', 'user' || g || '@example.com'), now()
      from generate_series(1, 5000) g`.execute(ctx.deps.db);
    bPerson = await makePerson(ctx.deps.db, b.project.id, { properties: { email: 'b@example.com' } });
  });
  after(() => ctx.close());

  const keyIdOf = async (tenant: Tenant) =>
    (
      await ctx.deps.db
        .selectFrom('personal_api_keys')
        .select('id')
        .where('user_id', '=', tenant.owner.id)
        .executeTakeFirstOrThrow()
    ).id;
  /** Sends `count` scans of `tenant`; `settled()` tells how many have answered so far. */
  function floodOf(tenant: Tenant, count: number) {
    let answered = 0;
    const all = Promise.all(
      Array.from({ length: count }, () => scan(tenant).then((response) => (answered++, response))),
    );
    return { all, settled: () => answered };
  }
  /** Until every request of the flood is refused or waiting (none arrives after A's slot is freed). */
  async function untilQueued(flood: { settled: () => number }, waiting: number, refused: number) {
    for (let tries = 0; tries < 1200; tries++) {
      if (ctx.app.heavySlots.stats.waiting === waiting && flood.settled() === refused) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  const scan = (tenant: Tenant) =>
    ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${tenant.project.id}/persons/?properties=${SCAN}`,
      headers: tenant.headers,
    });
  const retrieve = () =>
    ctx.app.inject({ method: 'GET', url: `/api/projects/${b.project.id}/persons/${bPerson.id}/`, headers: b.headers });

  function assertRefusal(response: LightMyRequestResponse) {
    assert.equal(response.headers['retry-after'], '1');
    const body = response.json();
    assert.deepEqual(
      { type: body.type, code: body.code, attr: body.attr },
      { type: 'throttled_error', code: 'concurrency_limited', attr: null },
    );
    assert.match(body.detail, /personal API key has 1 heavy requests/);
  }

  it('a flood of one key waits or is refused while another organization keeps reading', async () => {
    // A's key has its one heavy request running already (held here, as a long scan would hold it),
    // so every request of the flood meets the key's limit however the requests interleave.
    const held = await ctx.app.heavySlots.acquire({ key: await keyIdOf(a), project: String(a.project.id) });
    const flood = floodOf(a, 10);
    const [read, theirs] = await Promise.all([Promise.all(Array.from({ length: 10 }, () => retrieve())), scan(b)]);

    // Another organization's reads and its own scan were served while A's slot was still held.
    for (const response of read) assert.equal(response.statusCode, 200, response.body);
    assert.equal(theirs.statusCode, 200, theirs.body);
    assert.equal(theirs.headers['server-timing'], undefined, 'B never waited behind A');
    await untilQueued(flood, 3, 7);
    assert.deepEqual(
      ctx.app.heavySlots.stats,
      { running: 1, waiting: 3 },
      'three of A wait (the queue of a key), none runs',
    );
    assert.equal(flood.settled(), 7, 'the other seven were refused at once');
    held.release();

    const flooded = await flood.all;
    const refused = flooded.filter((response) => response.statusCode === 429);
    const waited = flooded.filter(
      (response) => response.statusCode === 200 && String(response.headers['server-timing']).startsWith('queue;dur='),
    );
    assert.deepEqual([refused.length, waited.length], [7, 3], flooded.map((response) => response.statusCode).join(','));
    for (const response of refused) assertRefusal(response);
    const counts = new Set(waited.map((response) => response.json().count));
    assert.equal(counts.size, 1, 'every served scan counts the same persons');
    assert.deepEqual(ctx.app.heavySlots.stats, { running: 0, waiting: 0 });
  });

  it('light requests of the flooding key itself are not held', async () => {
    const held = await ctx.app.heavySlots.acquire({ key: await keyIdOf(a), project: String(a.project.id) });
    const flood = floodOf(a, 6);
    const own = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${a.project.id}/persons/?limit=1`,
      headers: a.headers,
    });
    assert.equal(own.statusCode, 200, own.body);
    assert.equal(own.headers['server-timing'], undefined);
    await untilQueued(flood, 3, 3);
    held.release();
    const responses = await flood.all;
    assert.equal(
      responses.filter((response) => response.statusCode === 429).length,
      3,
      'the flood was refused past the queue',
    );
  });

  it('a request rejected before its slot (bad filter) takes none', async () => {
    const bad = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${a.project.id}/persons/?properties=not-json`,
      headers: a.headers,
    });
    assert.equal(bad.statusCode, 400, bad.body);
    const after = await scan(a);
    assert.equal(after.statusCode, 200, after.body);
    assert.equal(after.headers['server-timing'], undefined, 'a free slot, no wait');
  });
});
