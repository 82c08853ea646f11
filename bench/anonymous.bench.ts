// The cost of linking anonymous events: one `$identify` request (ingestEvents, one transaction)
// of a visitor that sent N personless events before, beside the same request for a visitor that
// sent none (the baseline, measured in the same run, turn by turn).
//   node bench/anonymous.bench.ts                      (PGlite in memory)
//   node bench/anonymous.bench.ts --pg "postgres://root@/herd_bench?host=/var/run/postgresql"
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { defaultConfig } from '../src/config.ts';
import type { Deps } from '../src/deps.ts';
import { systemClock } from '../src/deps.ts';
import { ingestEvents, type CaptureEvent } from '../src/ingestion/ingest.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { describeDatabase, median, openBenchDatabase, printTable, ratio, timed, type Row } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
    earlier: { type: 'string', default: '1,100,1000' },
    runs: { type: 'string', default: '15' },
    background: { type: 'string', default: '100000' },
  },
});
const EARLIER = args.earlier.split(',').map(Number);
const RUNS = Number(args.runs);
const BACKGROUND = Number(args.background);

const pageviews = (distinctId: string, count: number): CaptureEvent[] =>
  Array.from({ length: count }, (_, i) => ({
    event: '$pageview',
    distinct_id: distinctId,
    properties: { $process_person_profile: false, $current_url: `https://example.com/page/${i % 50}` },
  }));

const identify = (user: string, anon: string): CaptureEvent[] => [
  {
    event: '$identify',
    distinct_id: user,
    properties: { $anon_distinct_id: anon, $set: { email: `${user}@example.com` } },
  },
];

async function main() {
  const pg = args.pg ?? null;
  const handle = await openBenchDatabase(pg, 4);
  const deps: Deps = { db: handle.db, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
  const team = (await makeTenant(handle.db)).project;
  // Other visitors' anonymous events around them, so the events table is not tiny.
  for (let i = 0; i < BACKGROUND; i += 1000)
    await ingestEvents(deps, deps.db, team, pageviews(`crowd-${i / 1000}`, Math.min(1000, BACKGROUND - i)));
  // Each measured visitor's earlier events, sent as the SDK would, in batches of at most 1 000.
  for (const count of EARLIER) {
    for (let run = -1; run < RUNS; run++) {
      for (let sent = 0; sent < count; sent += 1000)
        await ingestEvents(deps, deps.db, team, pageviews(`anon-${count}-${run}`, Math.min(1000, count - sent)));
    }
  }
  await sql`analyze`.execute(handle.db);

  const ms: Record<string, number[]> = { 0: [] };
  for (const count of EARLIER) ms[count] = [];
  // Run -1 warms up; then the cases take turns, so the shared machine's load falls on all alike.
  for (let run = -1; run < RUNS; run++) {
    const none = await timed(() => ingestEvents(deps, deps.db, team, identify(`user-0-${run}`, `anon-0-${run}`)));
    if (run >= 0) ms[0].push(none.ms);
    for (const count of EARLIER) {
      const linked = await timed(() =>
        ingestEvents(deps, deps.db, team, identify(`user-${count}-${run}`, `anon-${count}-${run}`)),
      );
      if (run >= 0) ms[count].push(linked.ms);
    }
  }
  // Every earlier event of the measured visitors now has its person.
  const { rows } = await sql<{
    n: number;
  }>`select count(*)::integer as n from events where team_id = ${team.id} and distinct_id like 'anon-%' and person_id is null`.execute(
    handle.db,
  );
  if (rows[0].n !== 0) throw new Error(`${rows[0].n} anonymous events were not linked`);

  const baseline = median(ms[0]);
  const table: Row[] = [
    {
      'earlier anonymous events': '0 (baseline)',
      'ms (median)': baseline.toFixed(1),
      'p95 ms': p95(ms[0]).toFixed(1),
      'vs baseline': ratio(baseline, baseline),
    },
  ];
  for (const count of EARLIER) {
    table.push({
      'earlier anonymous events': String(count),
      'ms (median)': median(ms[count]).toFixed(1),
      'p95 ms': p95(ms[count]).toFixed(1),
      'vs baseline': ratio(median(ms[count]), baseline),
    });
  }
  printTable(
    `One $identify request on ${describeDatabase(pg)}, ${RUNS} runs each, ${BACKGROUND} other anonymous events stored`,
    table,
  );
  await handle.close();
}

function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
}

await main();
