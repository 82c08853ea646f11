// Load: autocannon at 64 connections against the persons list, a person, and capture on a real
// server (RATE_LIMIT=off): no error and no non-2xx answer, p99 recorded, and the server's RSS
// flat (the second half's peak within a tolerance of the first half's).
// HERD_LOAD_SECONDS sets each run's length: 60 under test:stress, 2 otherwise (a smoke run).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import {
  createStressDatabase,
  postJson,
  startServerProcess,
  STRESS,
  type ServerProcess,
  type StressDatabase,
} from './server-process.ts';

interface AutocannonResult {
  requests: { total: number; average: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats?: Record<string, { count: number }>;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const SECONDS = Number(process.env.HERD_LOAD_SECONDS ?? (STRESS ? 60 : 2));
const CONNECTIONS = Number(process.env.HERD_LOAD_CONNECTIONS ?? 64);
const PERSONS = STRESS ? 2000 : 200;
const MEMORY_TOLERANCE = STRESS ? 1.25 : 1.6;

describe('load', () => {
  let database: StressDatabase;
  let tenant: Tenant;
  let server: ServerProcess;
  const samples: number[] = [];
  let sampler: NodeJS.Timeout | undefined;

  before(async () => {
    database = await createStressDatabase();
    const handle = await database.open();
    tenant = await makeTenant(handle.db);
    await handle.close();
    server = await startServerProcess(database);
  });
  after(async () => {
    clearInterval(sampler);
    await server?.stop();
    await database.drop();
  });

  it(
    `holds ${CONNECTIONS} connections for ${SECONDS} s per endpoint with no error and flat memory`,
    { timeout: 900_000 },
    async (t) => {
      const token = tenant.project.api_token;
      for (let i = 0; i < PERSONS; i += 100) {
        const batch = Array.from({ length: Math.min(100, PERSONS - i) }, (_, j) => ({
          event: '$identify',
          distinct_id: `load-${i + j}`,
          uuid: crypto.randomUUID(),
          properties: { $set: { email: `load-${i + j}@example.com`, plan: j % 3 ? 'free' : 'pro' } },
        }));
        const res = await postJson(`${server.url}/batch/`, { api_key: token, batch });
        assert.equal(res.status, 200, res.body);
      }
      const auth = { authorization: tenant.headers.authorization };
      const personsPath = `/api/projects/${tenant.project.id}/persons/`;
      const list = await fetch(`${server.url}${personsPath}?limit=1`, { headers: auth });
      assert.equal(list.status, 200);
      const personId = ((await list.json()) as { results: { id: number }[] }).results[0]?.id;
      assert.ok(personId !== undefined, 'the seeded persons are listed');

      const targets: { name: string; request: AutocannonRequest }[] = [
        { name: 'list persons', request: { method: 'GET', path: `${personsPath}?limit=100`, headers: auth } },
        { name: 'retrieve person', request: { method: 'GET', path: `${personsPath}${personId}/`, headers: auth } },
        {
          name: 'capture',
          request: {
            method: 'POST',
            path: '/batch/',
            headers: { 'content-type': 'application/json' },
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({
                api_key: token,
                batch: [
                  {
                    event: 'load',
                    uuid: crypto.randomUUID(),
                    distinct_id: `load-${crypto.randomInt(PERSONS)}`,
                    properties: { $set: { seen: Date.now() } },
                  },
                ],
              }),
            }),
          },
        },
      ];

      // Warm up (JIT, pools, caches) before memory is sampled.
      for (const target of targets)
        await autocannon({
          url: server.url,
          connections: 8,
          duration: Math.min(3, SECONDS),
          requests: [target.request],
        });
      const failures: string[] = [];
      const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
      for (const target of targets) {
        // The previous run's requests still in flight when it stopped are served first: wait for them
        // (one request of this target, queued behind them) so a short run measures this endpoint.
        const probe = await fetch(`${server.url}${target.request.path}`, {
          method: target.request.method,
          headers: target.request.headers,
          body: target.request.setupRequest?.(target.request).body ?? target.request.body,
        });
        assert.equal(probe.status, 200, `${target.name}: ${await probe.text()}`);
        // Memory is judged per run: the second half's peak against the first half's.
        samples.length = 0;
        sampler = setInterval(() => samples.push(server.rss()), 200);
        const result = await autocannon({
          url: server.url,
          connections: CONNECTIONS,
          duration: SECONDS,
          requests: [target.request],
          timeout: 30,
        });
        clearInterval(sampler);
        const half = Math.floor(samples.length / 2);
        const firstPeak = Math.max(...samples.slice(0, half));
        const secondPeak = Math.max(...samples.slice(half));
        const line = `load ${target.name} (${database.kind}): ${result.requests.total} requests, ${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}; RSS peak ${mib(firstPeak)} MiB first half, ${mib(secondPeak)} MiB second half (${samples.length} samples)`;
        t.diagnostic(line);
        console.log(line);
        if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0)
          failures.push(`${line} ${JSON.stringify(result.statusCodeStats ?? {})}`);
        if (result.requests.total === 0) failures.push(`${target.name}: no request completed`);
        if (samples.length < 4) failures.push(`${target.name}: memory not sampled`);
        else if (secondPeak > firstPeak * MEMORY_TOLERANCE) failures.push(`${target.name}: memory grew: ${line}`);
      }
      assert.deepEqual(failures, []);
      // The server still answers after the storm.
      const ready = await fetch(`${server.url}/_ready`);
      assert.equal(ready.status, 200);
    },
  );
});
