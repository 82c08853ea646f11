// herd as a fleet over one database. Three servers behind a round-robin proxy (the example of
// docs/operations.md) allow one key its minute's budget once between them, hold its heavy-request
// slots between them, and refuse a revoked key within 1 s each; `herd serve --workers 3` does the
// same on one port, adds up its workers' /metrics, replaces a worker that dies and drains them all
// on SIGTERM. On PostgreSQL (TEST_DATABASE_URL) these are real processes; PGlite is opened by one
// process only, so there the three servers are three apps of this process listening on their own
// ports (behind the same proxy), and `--workers 3` is refused with its message.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import { PGLITE_REFUSAL } from '../../src/fleet.ts';
import type { App } from '../../src/http/route-module.ts';
import { createLogger } from '../../src/log.ts';
import { insertApiKey } from '../../src/modules/api-keys/api-keys.repository.ts';
import { SharedSlots } from '../../src/modules/limits/shared-slots.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { bearer, makeTenant, type Tenant } from '../helpers/factories.ts';
import { awayFromMinuteEdge } from '../helpers/limit-windows.ts';
import { startRoundRobinProxy, type RoundRobinProxy } from './round-robin-proxy.ts';
import { createStressDatabase, startServerProcess, type ServerProcess, type StressDatabase } from './server-process.ts';

const BURST = 60;
const ENV = { RATE_LIMIT: 'on', RATE_LIMIT_PER_MINUTE: String(BURST), HEAVY_QUEUE_WAIT_MS: '0' };
const SCAN = encodeURIComponent(JSON.stringify([{ key: 'email', value: 'x', operator: 'icontains', type: 'person' }]));
const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** One GET on a fresh connection (so that the cluster hands each to the next worker): status and body. */
function getFresh(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
  });
}

async function countBudget(base: string, headers: Record<string, string>) {
  await awayFromMinuteEdge();
  const statuses: number[] = [];
  for (let i = 0; i < BURST * 2; i++) statuses.push((await getFresh(`${base}/api/projects/`, headers)).status);
  return statuses;
}

describe(`three servers on one database behind a round-robin proxy (${onPostgres ? 'processes' : 'apps of one process'})`, () => {
  let db: Db;
  let tenant: Tenant;
  let stress: StressDatabase | null = null;
  let shared: TestDatabase | null = null;
  let processes: ServerProcess[] = [];
  const apps: App[] = [];
  let upstreams: string[] = [];
  let proxy: RoundRobinProxy;

  before(async () => {
    if (onPostgres) {
      stress = await createStressDatabase();
      db = (await stress.open()).db;
      processes = await Promise.all([0, 1, 2].map(() => startServerProcess(stress!, ENV)));
      upstreams = processes.map((server) => server.url);
    } else {
      shared = await createTestDatabase();
      db = shared.db;
      for (let n = 0; n < 3; n++) {
        const config = defaultConfig({
          rateLimit: true,
          limitsStore: 'database',
          rateLimits: { default: { burst: BURST, sustained: 4800 }, analytics: { burst: 240, sustained: 1200 } },
          heavyRequests: { ...defaultConfig().heavyRequests, queueWaitMs: 0 },
        });
        const app = await buildApp({
          db,
          changes: shared.changes,
          config,
          clock: { now: () => new Date() },
          log: createLogger('silent'),
        });
        apps.push(app);
        upstreams.push(await app.listen({ port: 0, host: '127.0.0.1' }));
      }
    }
    proxy = await startRoundRobinProxy(upstreams);
    tenant = await makeTenant(db);
  });
  after(async () => {
    await proxy?.close();
    for (const server of processes) await server.stop();
    for (const app of apps) await app.close();
    await stress?.drop();
    await shared?.close();
  });

  it("allows one key's requests spread over the three its minute's budget once", async (t) => {
    const statuses = await countBudget(proxy.url, tenant.headers);
    const allowed = statuses.filter((status) => status === 200).length;
    t.diagnostic(`${statuses.length} requests round-robin over 3 servers: ${allowed} allowed, budget ${BURST}`);
    assert.ok(allowed <= BURST && allowed >= BURST * 0.9, `allowed ${allowed}, budget ${BURST}`);
    assert.deepEqual(
      statuses.filter((status) => status !== 200 && status !== 429),
      [],
    );
  });

  it("holds one key's heavy-request slots between the three: two, not six", async () => {
    const other = await makeTenant(db);
    const key = await db
      .selectFrom('personal_api_keys')
      .select('id')
      .where('user_id', '=', other.owner.id)
      .executeTakeFirstOrThrow();
    const url = `/api/projects/${other.project.id}/persons/?properties=${SCAN}`;
    // Two long requests elsewhere hold the key's two slots.
    const elsewhere = new SharedSlots(db, createLogger('silent'), 30_000);
    const owner = { key: String(key.id), project: String(other.project.id) };
    const held = [
      await elsewhere.acquire(owner, { perKey: 2, perProject: 3 }, 0),
      await elsewhere.acquire(owner, { perKey: 2, perProject: 3 }, 0),
    ];
    for (const base of upstreams) {
      const refused = await getFresh(base + url, other.headers);
      assert.equal(refused.status, 429, refused.body);
      assert.equal(JSON.parse(refused.body).code, 'concurrency_limited');
    }
    for (const lease of held) if ('release' in lease) lease.release();
    await elsewhere.close();
    const leasesOfKey = async () =>
      (await db.selectFrom('heavy_slot_leases').select('slot').where('subject', '=', `key:${key.id}`).execute()).length;
    // A release does not wait for its statement: wait for both rows to go.
    for (let tries = 0; (await leasesOfKey()) > 0; tries++) {
      assert.ok(tries < 200, 'the released leases are gone');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // Free again: many at once through the proxy, never more than two leases of the key at a time.
    let peak = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        peak = Math.max(peak, await leasesOfKey());
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 12 }, () => getFresh(proxy.url + url, other.headers)));
    polling = false;
    await poll;
    const statuses = answers.map((answer) => answer.status);
    assert.ok(statuses.includes(200), JSON.stringify(statuses));
    assert.deepEqual(
      statuses.filter((status) => status !== 200 && status !== 429),
      [],
    );
    assert.ok(peak <= 2, `at most two slots of the key held at once, saw ${peak}`);
  });

  it('refuses a revoked key on every server within 1 s', async () => {
    const revoked = await insertApiKey(db, { userId: tenant.owner.id, label: 'revoked', scopes: ['*'] }, new Date());
    const headers = bearer(revoked.value);
    for (const base of upstreams) assert.equal((await getFresh(`${base}/api/projects/`, headers)).status, 200);
    const response = await fetch(`${upstreams[0]}/api/personal_api_keys/${revoked.row.id}/`, {
      method: 'DELETE',
      headers: bearer(revoked.value),
    });
    assert.equal(response.status, 204);
    const since = Date.now();
    for (const base of upstreams) {
      while ((await getFresh(`${base}/api/projects/`, headers)).status !== 401) {
        assert.ok(Date.now() - since < 1000, `${base} still serves the revoked key after 1 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  });
});

const run = promisify(execFile);
const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

describe('herd serve --workers 3', () => {
  if (!onPostgres) {
    it('is refused on the embedded database, saying why, exit code 2', async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-fleet-'));
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
        delete env.DATABASE_URL;
        const failure = await run(process.execPath, [CLI, 'serve', '--workers', '3', '--json'], { env }).then(
          () => null,
          (error: { code: number; stdout: string; stderr: string }) => error,
        );
        assert.ok(failure, 'it did not serve');
        assert.equal(failure.code, 2);
        assert.equal(JSON.parse(failure.stdout).error, PGLITE_REFUSAL);
        assert.equal(fs.readdirSync(dataDir).length, 0, 'the data directory was left untouched');
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
    return;
  }

  let stress: StressDatabase;
  let fleet: ServerProcess;
  let tenant: Tenant;
  const workersOf = () =>
    execFileSync('pgrep', ['-P', String(fleet.pid)])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);

  before(async () => {
    stress = await createStressDatabase();
    fleet = await startServerProcess(stress, ENV, ['--workers', '3']);
    tenant = await makeTenant((await stress.open()).db);
  });
  after(async () => {
    if (fleet.child.exitCode === null) await fleet.stop();
    await stress.drop();
  });

  it("allows one key its minute's budget once over the workers, and /metrics adds up all of theirs", async (t) => {
    assert.equal(workersOf().length, 3);
    const statuses = await countBudget(fleet.url, tenant.headers);
    const allowed = statuses.filter((status) => status === 200).length;
    t.diagnostic(`${statuses.length} requests over 3 workers: ${allowed} allowed, budget ${BURST}`);
    assert.ok(allowed <= BURST && allowed >= BURST * 0.9, `allowed ${allowed}, budget ${BURST}`);
    const metrics = (await getFresh(`${fleet.url}/metrics`)).body;
    const counted = (status: number) =>
      Number(
        new RegExp(`herd_http_requests_total\\{method="GET",route="/api/projects/",status="${status}"\\} (\\d+)`).exec(
          metrics,
        )?.[1] ?? 0,
      );
    assert.equal(counted(200), allowed, metrics);
    assert.equal(counted(429), statuses.length - allowed);
  });

  it('replaces a worker that dies, and says so in the log', async () => {
    const [victim] = workersOf();
    process.kill(victim, 'SIGKILL');
    const deadline = Date.now() + 30_000;
    const replaced = () =>
      workersOf().length === 3 && !workersOf().includes(victim) && /worker died; starting another/.test(fleet.output());
    while (!replaced()) {
      assert.ok(Date.now() < deadline, `no replacement in 30 s: ${fleet.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal((await getFresh(`${fleet.url}/_ready`)).status, 200);
  });

  it('stops every worker on SIGTERM and exits 0', async () => {
    const workers = workersOf();
    assert.equal(await fleet.stop(), 0);
    for (const pid of workers) assert.throws(() => process.kill(pid, 0), 'the worker is gone');
  });
});
