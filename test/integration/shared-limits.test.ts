// Limits counted in the database (LIMITS_STORE=database): several apps on one database, as several
// processes would be, allow one key its budget once between them, hold its heavy-request slots
// between them, lose nothing when a lease's holder vanishes, clean up expired rows, and let requests
// through (logged) when the limit tables cannot be reached. The same with real processes on
// PostgreSQL: test/stress/fleet.test.ts.
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import type { Database } from '../../src/db/schema.ts';
import { defaultConfig, type Config } from '../../src/config.ts';
import type { Deps } from '../../src/deps.ts';
import type { App } from '../../src/http/route-module.ts';
import { createLogger } from '../../src/log.ts';
import { deleteExpired } from '../../src/modules/limits/limits.repository.ts';
import { SharedBudgets } from '../../src/modules/limits/shared-budgets.ts';
import { SharedSlots } from '../../src/modules/limits/shared-slots.ts';
import { freePort } from '../stress/server-process.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { awayFromMinuteEdge } from '../helpers/limit-windows.ts';
import { bearer, makeKey, makeTenant, type Tenant } from '../helpers/factories.ts';

const BURST = 60;
const SCAN = encodeURIComponent(JSON.stringify([{ key: 'email', value: 'x', operator: 'icontains', type: 'person' }]));

function sharedConfig(overrides: Partial<Config> = {}): Config {
  return defaultConfig({
    rateLimit: true,
    limitsStore: 'database',
    rateLimits: { default: { burst: BURST, sustained: 100_000 }, analytics: { burst: BURST, sustained: 100_000 } },
    heavyRequests: { perKey: 2, perProject: 3, perProcess: 4, queueLength: 16, queueWaitMs: 0 },
    ...overrides,
  });
}

describe('limits shared through the database', () => {
  let database: TestDatabase;
  let tenant: Tenant;
  const apps: App[] = [];
  const logLines: string[] = [];
  const logSink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });

  const appOn = async (config: Config) => {
    const deps: Deps = {
      db: database.db,
      config,
      clock: { now: () => new Date() },
      log: createLogger('warn', logSink),
    };
    const app = await buildApp(deps);
    apps.push(app);
    return app;
  };
  /** `count` requests of one key spread round-robin over `over`; the statuses in order. */
  const roundRobin = async (over: App[], headers: Record<string, string>, count: number, url = '/api/projects/') => {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++)
      statuses.push((await over[i % over.length].inject({ method: 'GET', url, headers })).statusCode);
    return statuses;
  };

  before(async () => {
    database = await createTestDatabase();
    tenant = await makeTenant(database.db);
  });
  after(async () => {
    for (const app of apps) await app.close();
    await database.close();
  });

  it("allows a key its minute's budget once across three apps, not once in each", async () => {
    const three = [await appOn(sharedConfig()), await appOn(sharedConfig()), await appOn(sharedConfig())];
    await awayFromMinuteEdge();
    const statuses = await roundRobin(three, tenant.headers, BURST * 2);
    const allowed = statuses.filter((status) => status === 200).length;
    assert.equal(allowed, BURST, `allowed ${allowed} of ${BURST * 2}`);
    assert.deepEqual([...new Set(statuses.slice(BURST))], [429], 'every request past the budget refused');
    const refused = await three[1].inject({ method: 'GET', url: '/api/projects/', headers: tenant.headers });
    assert.equal(refused.json().code, 'throttled');
    const seconds = Number(refused.headers['retry-after']);
    assert.ok(seconds >= 1 && seconds <= 60, String(refused.headers['retry-after']));
    // Another key keeps its own budget.
    const other = bearer(await makeKey(database.db, tenant.owner));
    assert.deepEqual(await roundRobin(three, other, 3), [200, 200, 200]);
  });

  it('counts in each app alone with LIMITS_STORE=process (what the shared store prevents)', async () => {
    const three = [
      await appOn(sharedConfig({ limitsStore: 'process' })),
      await appOn(sharedConfig({ limitsStore: 'process' })),
      await appOn(sharedConfig({ limitsStore: 'process' })),
    ];
    const key = bearer(await makeKey(database.db, tenant.owner));
    await awayFromMinuteEdge();
    const statuses = await roundRobin(three, key, BURST * 2);
    assert.equal(statuses.filter((status) => status === 200).length, BURST * 2);
  });

  it("holds a key's heavy-request slots across apps: leases held elsewhere refuse it everywhere", async () => {
    const two = [await appOn(sharedConfig()), await appOn(sharedConfig())];
    const owner = await makeTenant(database.db);
    const key = await database.db
      .selectFrom('personal_api_keys')
      .select('id')
      .where('user_id', '=', owner.owner.id)
      .executeTakeFirstOrThrow();
    const url = `/api/projects/${owner.project.id}/persons/?properties=${SCAN}`;
    assert.equal((await two[0].inject({ method: 'GET', url, headers: owner.headers })).statusCode, 200);
    // Two other processes hold the key's two slots (as two long scans would).
    const elsewhere = [
      new SharedSlots(database.db, createLogger('silent'), 30_000),
      new SharedSlots(database.db, createLogger('silent'), 30_000),
    ];
    const held = [];
    for (const slots of elsewhere) {
      const outcome = await slots.acquire(
        { key: String(key.id), project: String(owner.project.id) },
        { perKey: 2, perProject: 3 },
        0,
      );
      assert.ok('release' in outcome);
      held.push(outcome);
    }
    for (const app of two) {
      const refused = await app.inject({ method: 'GET', url, headers: owner.headers });
      assert.equal(refused.statusCode, 429);
      assert.equal(refused.json().code, 'concurrency_limited');
      assert.match(refused.json().detail, /personal API key has 2 heavy requests/);
    }
    // Light requests of the key are not held.
    assert.equal(
      (await two[1].inject({ method: 'GET', url: '/api/projects/', headers: owner.headers })).statusCode,
      200,
    );
    held[0].release();
    await waitFor(async () => (await two[1].inject({ method: 'GET', url, headers: owner.headers })).statusCode === 200);
    held[1].release();
    for (const slots of elsewhere) await slots.close();
  });

  it('grants at most perKey slots of a key and perProject of a project among processes, both or neither', async () => {
    const [a, b, c] = [0, 1, 2].map(() => new SharedSlots(database.db, createLogger('silent'), 30_000));
    const maxima = { perKey: 2, perProject: 3 };
    const first = await a.acquire({ key: 'k1', project: 'p1' }, maxima, 0);
    const second = await b.acquire({ key: 'k1', project: 'p1' }, maxima, 0);
    assert.ok('release' in first && 'release' in second);
    assert.deepEqual(await c.acquire({ key: 'k1', project: 'p1' }, maxima, 0), { blocked: 'key' });
    const third = await c.acquire({ key: 'k2', project: 'p1' }, maxima, 0);
    assert.ok('release' in third);
    assert.deepEqual(await a.acquire({ key: 'k3', project: 'p1' }, maxima, 0), { blocked: 'project' });
    // Refused on the project, the key's slot taken on the way is given back (a release does not wait for the database).
    await waitFor(
      async () =>
        (await database.db.selectFrom('heavy_slot_leases').select('slot').where('subject', '=', 'key:k3').execute())
          .length === 0,
    );
    // A waiter gets the slot once one is released (here by another process, 100 ms later).
    setTimeout(() => first.release(), 100);
    const waited = await c.acquire({ key: 'k1', project: 'p1' }, maxima, 5000);
    assert.ok('release' in waited);
    for (const slots of [a, b, c]) await slots.close();
    // One subject a query: each is routed to its shard on Citus.
    for (const subject of ['key:k1', 'key:k2', 'project:p1']) {
      const left = await database.db
        .selectFrom('heavy_slot_leases')
        .select('slot')
        .where('subject', '=', subject)
        .execute();
      assert.deepEqual(left, [], `closing gives back every lease (${subject})`);
    }
  });

  it("frees a crashed holder's slot when its lease lapses", async () => {
    // What a process killed while it ran a heavy request leaves behind.
    await sql`insert into heavy_slot_leases (subject, slot, holder, taken_at, expires_at) values
      ('key:crashed', 0, 'gone:1', now(), now() + interval '1 second')`.execute(database.db);
    const slots = new SharedSlots(database.db, createLogger('silent'), 30_000);
    assert.deepEqual(await slots.acquire({ key: 'crashed', project: 'p9' }, { perKey: 1, perProject: 3 }, 0), {
      blocked: 'key',
    });
    const taken = await slots.acquire({ key: 'crashed', project: 'p9' }, { perKey: 1, perProject: 3 }, 5000);
    assert.ok('release' in taken, 'taken once the lease lapsed');
    await slots.close();
  });

  it('deletes expired windows and leases, keeps live ones', async () => {
    await sql`insert into limit_windows (subject, budget, window_start, hits, expires_at) values
      ('key:old', 'minute', now() - interval '3 minutes', 5, now() - interval '1 minute')`.execute(database.db);
    await sql`insert into limit_windows (subject, budget, window_start, hits, expires_at) values
      ('key:new', 'minute', now(), 5, now() + interval '1 minute')`.execute(database.db);
    await sql`insert into heavy_slot_leases (subject, slot, holder, taken_at, expires_at) values
      ('key:old', 0, 'gone:2', now() - interval '1 minute', now() - interval '1 second')`.execute(database.db);
    const deleted = await deleteExpired(database.db);
    assert.ok(deleted.windows >= 1 && deleted.leases >= 1, JSON.stringify(deleted));
    const windowsOf = (subject: string) =>
      database.db.selectFrom('limit_windows').select('hits').where('subject', '=', subject).execute();
    assert.deepEqual(await windowsOf('key:old'), []);
    assert.deepEqual(await windowsOf('key:new'), [{ hits: 5 }]);
    const leases = await database.db
      .selectFrom('heavy_slot_leases')
      .select('subject')
      .where('subject', '=', 'key:old')
      .execute();
    assert.deepEqual(leases, []);
  });

  it('lets requests through, logged, when the limit tables cannot be reached (never a 500)', async () => {
    const app = await appOn(sharedConfig());
    const owner = await makeTenant(database.db);
    await sql`alter table limit_windows rename to limit_windows_away`.execute(database.db);
    await sql`alter table heavy_slot_leases rename to heavy_slot_leases_away`.execute(database.db);
    try {
      await awayFromMinuteEdge();
      const statuses = await roundRobin([app], owner.headers, 5);
      const scan = await app.inject({
        method: 'GET',
        url: `/api/projects/${owner.project.id}/persons/?properties=${SCAN}`,
        headers: owner.headers,
      });
      assert.deepEqual([...statuses, scan.statusCode], [200, 200, 200, 200, 200, 200]);
      // Counted in this process alone meanwhile (the scan too): its budget still holds.
      const more = await roundRobin([app], owner.headers, BURST);
      assert.equal(more.filter((status) => status === 200).length, BURST - 6);
    } finally {
      await sql`alter table limit_windows_away rename to limit_windows`.execute(database.db);
      await sql`alter table heavy_slot_leases_away rename to heavy_slot_leases`.execute(database.db);
    }
    const warnings = logLines.map((line) => JSON.parse(line) as { msg: string }).map((line) => line.msg);
    assert.ok(warnings.includes('shared rate limit unavailable; counting in this process alone'), warnings.join('\n'));
    assert.ok(
      warnings.includes('shared heavy-request slots unavailable; running on this process slots alone'),
      warnings.join('\n'),
    );
  });
});

describe('limits when the database cannot be reached', () => {
  it('count in the process alone, logged, when connections are refused or never answered', async () => {
    // A port nothing listens on (refused at once), and a server that accepts and never answers.
    const refusing = await freePort();
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as net.AddressInfo).port;
    const warnings: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        warnings.push((JSON.parse(String(chunk)) as { msg: string }).msg);
        done();
      },
    });
    try {
      for (const port of [refusing, silentPort]) {
        const pool = new pg.Pool({
          host: '127.0.0.1',
          port,
          user: 'nobody',
          database: 'none',
          connectionTimeoutMillis: 2000,
        });
        pool.on('error', () => undefined);
        const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
        const budgets = new SharedBudgets(db, createLogger('warn', sink), { claimTimeoutMs: 200 });
        const allowed: boolean[] = [];
        for (let i = 0; i < 12; i++) allowed.push((await budgets.take('key:1', 'minute', 3_600_000, 10)).allowed);
        assert.deepEqual(allowed, [...Array(10).fill(true), false, false], `port ${port}`);
        await db.destroy();
      }
    } finally {
      silent.close();
    }
    assert.deepEqual(warnings, [
      'shared rate limit unavailable; counting in this process alone',
      'shared rate limit unavailable; counting in this process alone',
    ]);
  });
});

async function waitFor(check: () => Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
