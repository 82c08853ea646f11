// The flood of issue 14, item 6, on herd alone: organization B retrieves its own persons by id,
// first alone, then while organization A's one key keeps 16 regex property-filter lists (each a
// scan of A's persons) in flight, then alone again once the database has finished A's queries.
// B's requests are waited for to the end (a starved one counts with its whole wait).
import os from 'node:os';
import { sql } from 'kysely';
import { openPostgres } from '../src/db/database.ts';
import type { DatasetMeta } from './http-dataset.ts';
import { probe, sequence, startLoad, summarize, type Summary, type Target } from './http-load.ts';

export interface FloodTiming {
  seconds: number;
  warmupSeconds: number;
  floodConnections: number;
  probeConnections: number;
  /** Seconds the flood runs before B is measured under it. */
  settleSeconds: number;
}

export interface FloodResult {
  persons: number;
  /** Seconds of one regex list request with nothing else running (median of 3). */
  regexAloneSeconds: number;
  /** Their statuses: 504 when one ran past the statement time limit (a loaded machine). */
  regexAloneStatuses: number[];
  without: Summary;
  with: Summary;
  flood: Summary;
  /** Seconds the database still ran A's statements after its clients had gone. */
  drainSeconds: number;
  keeps: number;
  loadAverage: number[];
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A regex on the e-mail property: no index serves it, so each request scans A's persons (count and page). */
function floodPath(meta: DatasetMeta, next: () => number): string {
  const filter = [{ key: 'email', value: `^user${next() + 1}7@`, operator: 'regex', type: 'person' }];
  return `/api/projects/${meta.a.projectId}/persons/?properties=${encodeURIComponent(JSON.stringify(filter))}`;
}

async function waitForIdleDatabase(databaseUrl: string): Promise<number> {
  const handle = await openPostgres(databaseUrl, 1);
  const started = performance.now();
  try {
    for (;;) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and backend_type = 'client backend' and state = 'active' and pid <> pg_backend_pid()`.execute(
        handle.db,
      );
      if (rows[0].n === 0 || performance.now() - started > 300_000) return (performance.now() - started) / 1000;
      await pause(100);
    }
  } finally {
    await handle.close();
  }
}

export async function runFlood(
  herdUrl: string,
  databaseUrl: string,
  meta: DatasetMeta,
  timing: FloodTiming,
): Promise<FloodResult> {
  const a: Target = { name: 'A', url: herdUrl, headers: { authorization: `Bearer ${meta.a.key}` } };
  const b: Target = { name: 'B', url: herdUrl, headers: { authorization: `Bearer ${meta.b.key}` } };
  let seed = 0;
  const measureB = (seconds: number) => {
    const next = sequence(meta.b.persons, ++seed);
    return probe(b, {
      connections: timing.probeConnections,
      seconds,
      path: () => `/api/projects/${meta.b.projectId}/persons/${meta.b.firstPersonId + next()}/`,
    });
  };
  const floodNext = sequence(meta.persons / 10, 11);

  // One untimed request first: the copied database starts with cold caches.
  const alone: number[] = [];
  const aloneStatuses: number[] = [];
  for (let i = -1; i < 3; i++) {
    const started = performance.now();
    const response = await fetch(`${herdUrl}${floodPath(meta, floodNext)}`, { headers: a.headers });
    await response.text();
    if (response.status !== 200 && response.status !== 504) throw new Error(`regex list answered ${response.status}`);
    if (i >= 0) alone.push((performance.now() - started) / 1000);
    if (i >= 0) aloneStatuses.push(response.status);
  }
  alone.sort((x, y) => x - y);

  await measureB(timing.warmupSeconds);
  const before = await measureB(timing.seconds);
  const flood = startLoad(a, {
    connections: timing.floodConnections,
    seconds: 24 * 3600,
    path: () => floodPath(meta, floodNext),
    timeoutSeconds: 300,
  });
  await pause(timing.settleSeconds * 1000);
  const during = await measureB(timing.seconds);
  flood.stop();
  const flooded = await flood.done;
  const drainSeconds = await waitForIdleDatabase(databaseUrl);
  const after = await measureB(timing.seconds);

  const without = summarize([before, after]);
  const withFlood = summarize([during]);
  return {
    persons: meta.persons,
    regexAloneSeconds: alone[1],
    regexAloneStatuses: aloneStatuses,
    without,
    with: withFlood,
    flood: summarize([flooded]),
    drainSeconds,
    keeps: withFlood.rps / without.rps,
    loadAverage: os.loadavg(),
  };
}
