// Analytical views under load: for each size of an `--events` sweep, seeds N events over a month
// (one person per 10 events) into a fresh schema, then times every persons view and insight
// through the real app beside a plain `count(*)` of the same range, the two timed by turns (a load
// that changes during the run weighs on both). Prints each view's ratio to its count(*) and,
// across sizes, how much each view grew.
//   node bench/analytics.bench.ts --events 1000000,3000000
//   node bench/analytics.bench.ts --url postgres://…/herd_bench_analytics --events 10000000 --runs 3
//   node bench/analytics.bench.ts --db pglite --events 100000
//   node bench/analytics.bench.ts --slices 1 --only funnel     (one connection per query; views whose label has "funnel")
//   node bench/analytics.bench.ts --events 200000 --ab-root /tmp/base   (each view of this checkout by turns with
//     the same view of another checkout, e.g. `git worktree add /tmp/base <commit>` with node_modules linked, on
//     the same data: the ratio this / before)
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { SEED_END, seedAnalytics, seededCohortId } from './analytics-seed.ts';
import { ANALYTICS_VIEWS, paramsOf, type Range } from './analytics-views.ts';
import { describeDatabase, openBenchDatabase, printTable, ratio, timeByTurns } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    url: { type: 'string', default: 'postgres://root@/herd_bench_analytics?host=/var/run/postgresql' },
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '5' },
    only: { type: 'string', default: '' },
    // ANALYTICS_SLICES for the app under test (default: automatic, 3 on PostgreSQL).
    slices: { type: 'string', default: '' },
    // Another checkout (the code before a change): its app answers each view by turns with this one's.
    'ab-root': { type: 'string', default: '' },
  },
});
const SIZES = args.events.split(',').map(Number);
const RUNS = Number(args.runs);

const BASELINES: Record<Range, string> = { day: '2024-01-15', week: '2024-01-25', month: '2024-01-02' };
const BASELINE_END: Record<Range, string> = { day: '2024-01-16', week: '2024-02-01', month: '2024-02-01' };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

async function time(run: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((x, y) => x - y);
  return { p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

/**
 * Functions run by turns (each once a round, RUNS rounds after one warm-up round): each one's p50.
 * Every other round runs all but the first in reverse, so none always follows the same one.
 */
async function timeTurns(runs: (() => Promise<unknown>)[]): Promise<number[]> {
  for (const run of runs) await run();
  const samples = runs.map((): number[] => []);
  const indexes = runs.map((_, j) => j);
  for (let i = 0; i < RUNS; i++) {
    for (const j of i % 2 ? [0, ...indexes.slice(1).reverse()] : indexes) {
      const start = performance.now();
      await runs[j]();
      samples[j].push(performance.now() - start);
    }
  }
  return samples.map((list) =>
    percentile(
      [...list].sort((x, y) => x - y),
      0.5,
    ),
  );
}

/** A view and its baseline by turns (timeByTurns): the view's p50/p95 and the baseline's p50. */
async function timePaired(
  view: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
): Promise<{ p50: number; p95: number; baseline: number }> {
  const samples = await timeByTurns(view, baseline, RUNS);
  return {
    p50: percentile(samples.view, 0.5),
    p95: percentile(samples.view, 0.95),
    baseline: percentile(samples.baseline, 0.5),
  };
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

interface Measured {
  label: string;
  range: Range;
  p50: number;
  p95: number;
  /** The p50 of the count(*) of the view's range, timed by turns with the view. */
  baseline: number;
  ratio: number;
  /** With --ab-root: the other checkout's p50 of the view, timed by turns with this one's. */
  before?: number;
}

async function measureSize(pgUrl: string | null, events: number): Promise<Measured[]> {
  const handle = await openBenchDatabase(pgUrl);
  const tenant = await makeTenant(handle.db);
  const teamId = tenant.project.id;
  const seedMs = await seedAnalytics(handle, teamId, events, Math.max(1, Math.round(events / 10)));
  const cohort = await seededCohortId(handle.db, teamId);
  const config = defaultConfig({
    rateLimit: false,
    databaseUrl: pgUrl,
    analyticsSlices: args.slices ? Number(args.slices) : null,
  });
  const deps = { db: handle.db, config, clock: { now: () => SEED_END }, log: createLogger('silent') };
  const app = await buildApp(deps);
  const other = args['ab-root']
    ? await ((await import(`${args['ab-root']}/src/app.ts`)) as { buildApp: typeof buildApp }).buildApp(deps)
    : null;
  const request = async (path: string, params: Record<string, unknown>, on = app) => {
    const query = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
    );
    const res = await on.inject({
      method: 'GET',
      url: `/api/projects/${teamId}/${path}/?${query}`,
      headers: tenant.headers,
    });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res;
  };
  const loadBefore = load();
  const count = (range: Range) => () =>
    sql`select count(*) from events where team_id = ${teamId} and timestamp >= ${BASELINES[range]}::timestamptz and timestamp < ${BASELINE_END[range]}::timestamptz`.execute(
      handle.db,
    );
  const baseline: Record<Range, number> = { day: 0, week: 0, month: 0 };
  for (const range of ['day', 'week', 'month'] as Range[]) baseline[range] = (await time(count(range))).p50;
  const measured: Measured[] = [];
  for (const view of ANALYTICS_VIEWS.filter((v) => !args.only || v.label.includes(args.only))) {
    if (other) {
      const [base, before, p50] = await timeTurns([
        count(view.range),
        () => request(view.path, paramsOf(view, cohort), other),
        () => request(view.path, paramsOf(view, cohort)),
      ]);
      measured.push({ label: view.label, range: view.range, p50, p95: 0, baseline: base, ratio: p50 / base, before });
      continue;
    }
    const timed = await timePaired(() => request(view.path, paramsOf(view, cohort)), count(view.range));
    measured.push({ label: view.label, range: view.range, ...timed, ratio: timed.p50 / timed.baseline });
  }
  // The baselines once more at the end: the machine is shared, so both ends of the run are shown.
  const monthAgain = (
    await time(() =>
      sql`select count(*) from events where team_id = ${teamId} and timestamp >= ${BASELINES.month}::timestamptz`.execute(
        handle.db,
      ),
    )
  ).p50;
  printTable(
    `${describeDatabase(pgUrl)}: ${events} events, ${Math.round(events / 10)} persons (seeded in ${(seedMs / 1000).toFixed(0)} s), ${RUNS} runs each; load average ${loadBefore} at the start, ${load()} at the end`,
    [
      ...(['day', 'week', 'month'] as Range[]).map((range) => ({
        query: `baseline: count(*) of the ${range}`,
        'p50 ms': baseline[range].toFixed(1),
        'p95 ms': '',
        'count(*) p50 ms': '',
        'p50 / count(*) of its range': '1.00×',
        ...(other ? { 'before p50 ms': '', 'this / before': '' } : {}),
      })),
      ...measured.map((m) => ({
        query: `${m.label} (${m.range})`,
        'p50 ms': m.p50.toFixed(1),
        'p95 ms': m.p95.toFixed(1),
        'count(*) p50 ms': m.baseline.toFixed(1),
        'p50 / count(*) of its range': ratio(m.p50, m.baseline),
        ...(m.before === undefined
          ? {}
          : { 'before p50 ms': m.before.toFixed(1), 'this / before': ratio(m.p50, m.before) }),
      })),
      {
        query: 'baseline again at the end: count(*) of the month',
        'p50 ms': monthAgain.toFixed(1),
        'p95 ms': '',
        'count(*) p50 ms': '',
        'p50 / count(*) of its range': ratio(monthAgain, baseline.month),
      },
    ],
  );
  measured.unshift(
    ...(['day', 'week', 'month'] as Range[]).map((range) => ({
      label: `count(*) of the ${range}`,
      range,
      p50: baseline[range],
      p95: 0,
      baseline: baseline[range],
      ratio: 1,
    })),
  );
  await app.close();
  await other?.close();
  await handle.close();
  return measured;
}

async function main() {
  const pgUrl = args.db === 'pglite' ? null : args.url;
  const bySize: Measured[][] = [];
  for (const events of SIZES) bySize.push(await measureSize(pgUrl, events));
  for (let i = 1; i < SIZES.length; i++) {
    const [before, after] = [bySize[i - 1], bySize[i]];
    printTable(
      `Growth from ${SIZES[i - 1]} to ${SIZES[i]} events (${(SIZES[i] / SIZES[i - 1]).toFixed(1)}× the data)`,
      after.map((m, j) => ({
        query: `${m.label} (${m.range})`,
        [`p50 ms at ${SIZES[i - 1]}`]: before[j].p50.toFixed(1),
        [`p50 ms at ${SIZES[i]}`]: m.p50.toFixed(1),
        growth: ratio(m.p50, before[j].p50),
        [`ratio at ${SIZES[i - 1]}`]: before[j].ratio.toFixed(2),
        [`ratio at ${SIZES[i]}`]: m.ratio.toFixed(2),
      })),
    );
  }
}

await main();
