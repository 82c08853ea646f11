// One big project on a 3-node Citus cluster beside one PostgreSQL server, in one run: the same
// month of N events (analytics-seed.ts) in both, then each month view (trends, funnel, lifecycle,
// and the other persons views and insights) timed through the real app, the two databases taking
// turns query by query, each beside the count(*) of the month on its own database, and whether
// both answered the same numbers.
//   node bench/analytics-citus.bench.ts --events 1000000
//     [--url postgres://root@/herd_bench_citus?host=/var/run/postgresql]   (a database the bench owns: createdb herd_bench_citus)
//     [--citus postgres://root@127.0.0.1:55432/herd_bench_citus] [--workers 127.0.0.1:55433,127.0.0.1:55434]
//     [--slices 1] [--citus-slices 1] [--only funnel] [--only 'lifecycle insight|retention'] [--timeout-s 120]
//   node bench/analytics-citus.bench.ts --events 10000000 --runs 0    (each view once: its answer run is its time)
//   node bench/analytics-citus.bench.ts --events 10000000 --seed-only, later … --reuse
//     (seed both databases and stop; then time the views over that seed, migrated to the latest schema)
// A view over the analytical statement time limit (--timeout-s, herd's 504 query_timeout) is
// reported as over it and not run again.
import { createHash } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import { openPostgres, type DatabaseHandle } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { bearer, makeKey, makeTenant } from '../test/helpers/factories.ts';
import { SEED_END, seedAnalytics, seededCohortId } from './analytics-seed.ts';
import { ANALYTICS_VIEWS, paramsOf } from './analytics-views.ts';
import {
  DEFAULT_CITUS_WORKERS,
  describeCitus,
  describeDatabase,
  median,
  openBenchDatabase,
  openCitusBenchDatabase,
  printTable,
  ratio,
  timed,
} from './lib.ts';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://root@/herd_bench_citus?host=/var/run/postgresql' },
    citus: { type: 'string', default: 'postgres://root@127.0.0.1:55432/herd_bench_citus' },
    workers: { type: 'string', default: DEFAULT_CITUS_WORKERS },
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '5' },
    only: { type: 'string', default: '' },
    // ANALYTICS_SLICES of the app on each database (default: automatic, 3 on a server).
    slices: { type: 'string', default: '' },
    'citus-slices': { type: 'string', default: '' },
    'timeout-s': { type: 'string', default: '120' },
    'seed-only': { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(args.events);
const PERSONS = Math.max(1, Math.round(EVENTS / 10));
const RUNS = Number(args.runs);
const TIMEOUT_MS = Number(args['timeout-s']) * 1000;
/** A view's answer when herd cancelled it at the time limit. */
const OVER_LIMIT = 'over the limit';
const MONTH_COUNT = sql`timestamp >= '2024-01-02' and timestamp < '2024-02-01'`;

interface Target {
  label: string;
  seedMs: number;
  count: () => Promise<unknown>;
  request: (path: string, params: Record<string, unknown>) => Promise<unknown>;
  /** The id of the project's seeded static cohort. */
  cohort: number;
  close: () => Promise<void>;
}

/** The project of an earlier `--seed-only` run of as many events, and a new key of its owner. */
async function reusedTenant(handle: DatabaseHandle): Promise<{ teamId: number; headers: Record<string, string> }> {
  // Two statements: Citus refuses a subquery on events correlated with the reference table teams.
  const found = await sql<{ team_id: number; user_id: number }>`
    select t.id as team_id, m.user_id
    from teams t join organization_memberships m on m.organization_id = t.organization_id
    order by t.id desc, m.level desc limit 1`.execute(handle.db);
  const row = found.rows[0];
  const events = row
    ? (
        await sql<{ events: string }>`select count(*) as events from events where team_id = ${row.team_id}`.execute(
          handle.db,
        )
      ).rows[0].events
    : 'none';
  if (!row || Number(events) !== EVENTS) {
    throw new Error(`--reuse: no project of ${EVENTS} events here (found ${events}); seed with --seed-only first`);
  }
  const user = await handle.db.selectFrom('users').selectAll().where('id', '=', row.user_id).executeTakeFirstOrThrow();
  return { teamId: row.team_id, headers: bearer(await makeKey(handle.db, user)) };
}

async function prepare(label: string, handle: DatabaseHandle, databaseUrl: string, slices: string): Promise<Target> {
  let tenant: { teamId: number; headers: Record<string, string> };
  let seedMs = Number.NaN;
  if (args.reuse) tenant = await reusedTenant(handle);
  else {
    const made = await makeTenant(handle.db);
    tenant = { teamId: made.project.id, headers: made.headers };
    seedMs = await seedAnalytics(handle, tenant.teamId, EVENTS, PERSONS);
  }
  const teamId = tenant.teamId;
  const cohort = await seededCohortId(handle.db, teamId);
  const config = defaultConfig({
    rateLimit: false,
    databaseUrl,
    analyticsSlices: slices ? Number(slices) : null,
    statementTimeoutMs: { default: TIMEOUT_MS, analytics: TIMEOUT_MS },
  });
  const app = await buildApp({ db: handle.db, config, clock: { now: () => SEED_END }, log: createLogger('silent') });
  return {
    label,
    seedMs,
    cohort,
    count: () => sql`select count(*) from events where team_id = ${teamId} and ${MONTH_COUNT}`.execute(handle.db),
    request: async (path, params) => {
      const query = new URLSearchParams(
        Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
      const res = await app.inject({
        method: 'GET',
        url: `/api/projects/${teamId}/${path}/?${query}`,
        headers: tenant.headers,
      });
      if (res.statusCode === 504) return OVER_LIMIT;
      if (res.statusCode !== 200) throw new Error(`${label} ${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res.json();
    },
    close: async () => {
      await app.close();
      await handle.close();
    },
  };
}

/**
 * The numbers of an answer, to compare two databases: person ids, uuids and the order of a page of
 * persons (by uuid, random per database) differ; the counts, series and aggregates must not.
 */
function numbersOf(body: unknown): string {
  const numbers: number[] = [];
  const walk = (value: unknown, key: string) => {
    if (['id', 'people', 'person', 'persons', 'uuid', 'distinct_ids'].includes(key)) {
      if (Array.isArray(value)) numbers.push(value.length);
      return;
    }
    if (typeof value === 'number') numbers.push(value);
    else if (Array.isArray(value)) value.forEach((item) => walk(item, ''));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(body, '');
  return createHash('sha1').update(numbers.join(',')).digest('hex').slice(0, 8);
}

const seededIn = (target: Target) =>
  Number.isNaN(target.seedMs) ? 'seeded by an earlier run' : `seeded in ${(target.seedMs / 1000).toFixed(0)} s`;

/** A database seeded by an earlier run, brought to the latest schema. */
async function openReused(url: string): Promise<DatabaseHandle> {
  const handle = await openPostgres(url, 4);
  await migrateToLatest(handle.db);
  return handle;
}

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

async function main() {
  const open = args.reuse
    ? [openReused(args.url), openReused(args.citus)]
    : [openBenchDatabase(args.url), openCitusBenchDatabase(args.citus, args.workers)];
  const pg = await prepare(describeDatabase(args.url), await open[0], args.url, args.slices);
  const citus = await prepare(describeCitus(args.citus, args.workers), await open[1], args.citus, args['citus-slices']);
  const targets = [pg, citus];
  if (args['seed-only']) {
    console.log(
      `seeded ${EVENTS} events: ${pg.label} in ${(pg.seedMs / 1000).toFixed(0)} s, ${citus.label} in ${(citus.seedMs / 1000).toFixed(0)} s`,
    );
    for (const target of targets) await target.close();
    return;
  }
  const loadBefore = load();
  const views = ANALYTICS_VIEWS.filter(
    (view) => view.range === 'month' && (!args.only || args.only.split('|').some((part) => view.label.includes(part))),
  );
  const queries: [string, (t: Target) => Promise<unknown>][] = [
    ['baseline: count(*) of the month', (t) => t.count()],
    ...views.map((view): [string, (t: Target) => Promise<unknown>] => [
      view.label,
      (t) => t.request(view.path, paramsOf(view, t.cohort)),
    ]),
    ['baseline again: count(*) of the month', (t) => t.count()],
  ];
  const rows = [];
  let baselines = [0, 0];
  for (const [label, run] of queries) {
    // The two databases take turns run by run, so the shared machine's load falls on both alike.
    const answers: unknown[] = [];
    const firstRuns: number[] = [];
    for (const target of targets) {
      const { ms, value } = await timed(() => run(target));
      answers.push(value);
      firstRuns.push(ms);
    }
    const over = answers.map((answer) => answer === OVER_LIMIT);
    const samples: number[][] = firstRuns.map((ms) => (RUNS === 0 ? [ms] : []));
    for (let i = 0; i < RUNS; i++) {
      for (const [t, target] of targets.entries()) if (!over[t]) samples[t].push((await timed(() => run(target))).ms);
    }
    const [single, cluster] = samples.map((times, t) => (over[t] ? Number.NaN : median(times)));
    if (label.startsWith('baseline:')) baselines = [single, cluster];
    const msOf = (ms: number) => (Number.isNaN(ms) ? `over ${args['timeout-s']} s` : ms.toFixed(1));
    const ratioOf = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) ? '—' : ratio(a, b));
    rows.push({
      'month view': label,
      'PostgreSQL p50 ms': msOf(single),
      'PostgreSQL / its count(*)': ratioOf(single, baselines[0]),
      'Citus p50 ms': msOf(cluster),
      'Citus / its count(*)': ratioOf(cluster, baselines[1]),
      'Citus / PostgreSQL': ratioOf(cluster, single),
      'same numbers': over.some(Boolean) ? '—' : numbersOf(answers[0]) === numbersOf(answers[1]) ? 'yes' : 'no',
    });
    // Each view as it ends, on stderr: a long run stopped early still says what it measured.
    console.error(Object.values(rows[rows.length - 1]).join(' | '));
  }
  printTable(
    `${EVENTS} events, ${PERSONS} persons of one project over a month; ${pg.label} (${seededIn(pg)}, slices ${args.slices || 'auto'}) beside ${citus.label} (${seededIn(citus)}, slices ${args['citus-slices'] || 'auto'}); ${RUNS === 0 ? 'one run each' : `median of ${RUNS}`}; load average ${loadBefore} at the start, ${load()} at the end`,
    rows,
  );
  for (const target of targets) await target.close();
}

await main();
