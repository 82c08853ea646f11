// Many batches at once over a few distinct ids: no request fails, no deadlock, no update lost.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openPostgres } from '../../src/db/database.ts';
import type { Deps } from '../../src/deps.ts';
import { ingestEvents } from '../../src/ingestion/ingest.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { personByDistinctId, post } from '../http/capture-helpers.ts';

const BATCHES = 20;
const EVENTS = 50;
const IDS = 5;

let ctx: TestContext;

before(async () => {
  ctx = await setupTestApp();
});
after(() => ctx.close());

function batchOf(run: string, i: number) {
  const events: object[] = [
    // Merges too: an existing unidentified person of its own joins one of the shared ids.
    { event: '$identify', distinct_id: `${run}-d${i % IDS}`, properties: { $anon_distinct_id: `${run}-pre${i}` } },
  ];
  for (let j = 1; j < EVENTS; j++)
    events.push({ event: 'tick', distinct_id: `${run}-d${(i + j) % IDS}`, $set: { [`b${i}e${j}`]: j } });
  return events;
}

async function check(tenant: Tenant, run: string) {
  for (let k = 0; k < IDS; k++) {
    const stored = await personByDistinctId(ctx.deps.db, tenant.project.id, `${run}-d${k}`);
    assert.ok(stored, `${run}-d${k}`);
    const expected = new Set<string>();
    for (let i = 0; i < BATCHES; i++) {
      for (let j = 1; j < EVENTS; j++) if ((i + j) % IDS === k) expected.add(`b${i}e${j}`);
      if (i % IDS === k) {
        expected.add(`pre${i}`);
        assert.ok(stored.distinct_ids.includes(`${run}-pre${i}`), `${run}-pre${i} joined ${run}-d${k}`);
      }
    }
    const missing = [...expected].filter((key) => !(key in stored.properties));
    assert.deepEqual(missing, [], `${run}-d${k} lost updates`);
    assert.equal(stored.is_identified, true);
  }
  const events = await ctx.deps.db
    .selectFrom('events')
    .select(['distinct_id', 'person_id'])
    .where('team_id', '=', tenant.project.id)
    .where('distinct_id', 'like', `${run}-d%`)
    .execute();
  assert.equal(events.length, BATCHES * EVENTS);
}

async function prepare(deps: Deps, tenant: Tenant, run: string) {
  for (let i = 0; i < BATCHES; i++)
    await ingestEvents(deps, deps.db, tenant.project, [
      { event: 'pre', distinct_id: `${run}-pre${i}`, $set: { [`pre${i}`]: true } },
    ]);
}

test('parallel capture requests over shared distinct ids apply every $set', async () => {
  const tenant = await makeTenant(ctx.deps.db);
  await prepare(ctx.deps, tenant, 'http');
  const responses = await Promise.all(
    Array.from({ length: BATCHES }, (_, i) =>
      post(ctx.app, '/batch/', { api_key: tenant.project.api_token, batch: batchOf('http', i) }),
    ),
  );
  assert.deepEqual(
    responses.map((response) => response.statusCode),
    Array(BATCHES).fill(200),
    responses.map((r) => r.body).join('\n'),
  );
  await check(tenant, 'http');
});

test('parallel ingestEvents on a wide connection pool apply every $set', async () => {
  const tenant = await makeTenant(ctx.deps.db);
  // On PostgreSQL, one connection per batch so every batch really runs at the same time.
  const wide = ctx.database.connection ? await openPostgres(ctx.database.connection, BATCHES) : null;
  try {
    const deps: Deps = { ...ctx.deps, db: wide?.db ?? ctx.deps.db };
    await prepare(deps, tenant, 'wide');
    const results = await Promise.allSettled(
      Array.from({ length: BATCHES }, (_, i) =>
        ingestEvents(deps, deps.db, tenant.project, batchOf('wide', i) as Parameters<typeof ingestEvents>[3]),
      ),
    );
    assert.deepEqual(
      results.filter((result) => result.status === 'rejected'),
      [],
    );
    await check(tenant, 'wide');
  } finally {
    await wide?.close();
  }
});
