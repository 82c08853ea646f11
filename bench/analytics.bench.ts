// Analytical persons views under load: seeds N events over M persons with one bulk SQL generator,
// then times the trends, 3-step funnel and lifecycle persons endpoints through the real app,
// beside a plain `count(*)` of the same events measured in the same run.
//   node bench/analytics.bench.ts --db postgres --url postgres://root@/herd_bench_analytics?host=/var/run/postgresql
//   node bench/analytics.bench.ts --db pglite --events 100000 --persons 10000
//   node bench/analytics.bench.ts --db postgres --url … --citus postgres://root@127.0.0.1:55432/herd_bench_analytics
//     [--citus-workers 127.0.0.1:55433,127.0.0.1:55434]   (beside it, the same on a 3-node Citus cluster)
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import type { DatabaseHandle } from '../src/db/database.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { DEFAULT_CITUS_WORKERS, describeCitus, describeDatabase, openBenchDatabase, openCitusBenchDatabase, printTable, ratio } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    url: { type: 'string', default: 'postgres://root@/herd_bench_analytics?host=/var/run/postgresql' },
    events: { type: 'string', default: '1000000' },
    persons: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '15' },
    citus: { type: 'string' },
    'citus-workers': { type: 'string', default: DEFAULT_CITUS_WORKERS },
  },
});
const EVENTS = Number(args.events);
const PERSONS = Number(args.persons);
const RUNS = Number(args.runs);
const DAYS = 30;
const END = new Date('2024-02-01T00:00:00Z');

async function seed(handle: DatabaseHandle, teamId: number) {
  const { db } = handle;
  const started = performance.now();
  await sql`insert into persons (team_id, uuid, properties, created_at)
    select ${teamId}, gen_random_uuid(), jsonb_build_object('email', 'user' || g || '@example.com', 'plan', case when g % 5 = 0 then 'pro' else 'free' end),
      ${END}::timestamptz - ${DAYS + 10} * interval '1 day' + (g % ${DAYS + 10}) * interval '1 day'
    from generate_series(1, ${PERSONS}) g`.execute(db);
  await sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select team_id, 'user-' || id, id from persons where team_id = ${teamId}`.execute(db);
  const base = await sql<{ min: number }>`select min(id) as min from persons where team_id = ${teamId}`.execute(db);
  const first = Number(base.rows[0].min);
  // Event mix: half pageviews, then signups, purchases and noise, over the last 30 days in arrival
  // order (as ingestion writes them), each event from a pseudo-random person. Hashes, not random():
  // two databases seeded in one run hold the same events and give the same answers.
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, properties, person_properties, timestamp)
    select ${teamId}, gen_random_uuid(),
      case when r < 0.5 then '$pageview' when r < 0.7 then 'signup' when r < 0.8 then 'purchase' else 'other' end,
      'user-' || pid, pid, jsonb_build_object('$current_url', '/page/' || (g % 20)), jsonb_build_object('plan', case when pid % 5 = 0 then 'pro' else 'free' end),
      ${END}::timestamptz - (1 - g::float8 / ${EVENTS}) * ${DAYS} * interval '1 day'
    from (select g, (hashint4(g # 1234567) & 2147483647)::float8 / 2147483648 as r, ${first} + (hashint4(g) & 2147483647) % ${PERSONS} as pid from generate_series(1, ${EVENTS}) g) s`.execute(db);
  // What autovacuum would have done by the time anyone queries: statistics and the visibility map.
  await sql`vacuum analyze`.execute(db);
  return performance.now() - started;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))];
}

async function time(label: string, run: () => Promise<unknown>) {
  // The page size of the answer (or the count), to show each query found something.
  const answer = (await run()) as { results?: { count: number }[]; rows?: { count: number }[] };
  const found = answer.results ? answer.results[0].count : Number(answer.rows?.[0]?.count);
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((x, y) => x - y);
  return { label, found, p50: percentile(samples, 0.5), p95: percentile(samples, 0.95) };
}

type Run = () => Promise<unknown>;

/** Seeds one database and answers its queries, labelled, in the order they are timed. */
async function prepare(handle: DatabaseHandle): Promise<{ seedMs: number; queries: [string, Run][]; close: () => Promise<void> }> {
  const tenant = await makeTenant(handle.db);
  const teamId = tenant.project.id;
  const seedMs = await seed(handle, teamId);
  const app = await buildApp({
    db: handle.db,
    config: defaultConfig({ rateLimit: false }),
    clock: { now: () => END },
    log: createLogger('silent'),
  });
  const get = async (view: string, params: Record<string, unknown>) => {
    const query = new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'string' ? v : JSON.stringify(v)]));
    const res = await app.inject({ method: 'GET', url: `/api/projects/${teamId}/persons/${view}/?${query}`, headers: tenant.headers });
    if (res.statusCode !== 200) throw new Error(`${view}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const month = { date_from: '2024-01-02', date_to: '2024-01-31' };
  const steps = [{ id: '$pageview', order: 0 }, { id: 'signup', order: 1 }, { id: 'purchase', order: 2 }];
  const count = (from: string) => () => sql`select count(*) from events where team_id = ${teamId} and timestamp >= ${from}::timestamptz and timestamp < '2024-02-01'`.execute(handle.db);
  // Each view with its default range (-7d: the last week, about a quarter of the events) and over the month.
  const queries: [string, Run][] = [
    ['baseline: count(*) of the last week', count('2024-01-25')],
    ['baseline: count(*) of the month', count('2024-01-02')],
    ['trends persons, one day bucket', () => get('trends', { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-15', date_to: '2024-01-15' })],
    ['trends persons, last week (ActionsTable)', () => get('trends', { entity_id: '$pageview', entity_type: 'events', display: 'ActionsTable' })],
    ['trends persons, month (ActionsTable)', () => get('trends', { entity_id: '$pageview', entity_type: 'events', display: 'ActionsTable', ...month })],
    ['funnel persons, 3 steps, last week, step 3', () => get('funnel', { events: steps, funnel_step: '3' })],
    ['funnel persons, 3 steps, month, step 3', () => get('funnel', { events: steps, funnel_step: '3', ...month })],
    ['funnel persons, 3 steps, month, drop-off -2', () => get('funnel', { events: steps, funnel_step: '-2', ...month })],
    ['lifecycle persons, last week, dormant', () => get('lifecycle', { events: [{ id: '$pageview' }], target_date: '2024-01-28', lifecycle_type: 'dormant' })],
    ['lifecycle persons, month, dormant', () => get('lifecycle', { events: [{ id: '$pageview' }], target_date: '2024-01-15', lifecycle_type: 'dormant', ...month })],
  ];
  return { seedMs, queries, close: async () => { await app.close(); await handle.close(); } };
}

type Result = Awaited<ReturnType<typeof time>>;

function resultRows(results: Result[]) {
  // Each figure beside the count(*) of its own range: the month baseline for month-wide queries.
  const [week, month_] = results;
  const baselineOf = (label: string) => (label.includes('month') ? month_ : week);
  return results.map((result) => ({
    query: result.label,
    'rows / persons on the page': result.found,
    'p50 ms': result.p50.toFixed(1),
    'p95 ms': result.p95.toFixed(1),
    'p50 / baseline': ratio(result.p50, baselineOf(result.label).p50),
  }));
}

async function main() {
  const pgUrl = args.db === 'pglite' ? null : args.url;
  if (args.citus && !pgUrl) throw new Error('--citus is measured beside PostgreSQL: use --db postgres');
  const targets = [{ label: describeDatabase(pgUrl), ...(await prepare(await openBenchDatabase(pgUrl))) }];
  if (args.citus) {
    const workers = args['citus-workers'];
    targets.push({ label: describeCitus(args.citus, workers), ...(await prepare(await openCitusBenchDatabase(args.citus, workers))) });
  }
  // Query by query, the databases take turns, so the shared machine's load falls on both alike.
  const results: Result[][] = targets.map(() => []);
  for (let i = 0; i < targets[0].queries.length; i++) {
    for (const [t, target] of targets.entries()) results[t].push(await time(...target.queries[i]));
  }
  for (const [t, target] of targets.entries()) {
    printTable(`${target.label}: ${EVENTS} events, ${PERSONS} persons (seeded in ${(target.seedMs / 1000).toFixed(1)} s), ${RUNS} runs each`, resultRows(results[t]));
  }
  if (targets.length === 2) {
    printTable('Citus beside PostgreSQL, same run (p50 of the cluster over that of the single server)', results[0].map((single, i) => ({
      query: single.label,
      'PostgreSQL p50 ms': single.p50.toFixed(1),
      'Citus p50 ms': results[1][i].p50.toFixed(1),
      'Citus / PostgreSQL': ratio(results[1][i].p50, single.p50),
      'same answer': single.found === results[1][i].found ? 'yes' : `no (${single.found} / ${results[1][i].found})`,
    })));
  }
  for (const target of targets) await target.close();
}

await main();
