// Analytical persons views under load: seeds N events over M persons with one bulk SQL generator,
// then times the trends, 3-step funnel and lifecycle persons endpoints through the real app,
// beside a plain `count(*)` of the same events measured in the same run.
//   node bench/analytics.bench.ts --db postgres --url postgres://root@/herd_bench_analytics?host=/var/run/postgresql
//   node bench/analytics.bench.ts --db pglite --events 100000 --persons 10000
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import type { DatabaseHandle } from '../src/db/database.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { describeDatabase, openBenchDatabase, printTable, ratio } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    url: { type: 'string', default: 'postgres://root@/herd_bench_analytics?host=/var/run/postgresql' },
    events: { type: 'string', default: '1000000' },
    persons: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '15' },
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
  // order (as ingestion writes them), each event from a pseudo-random person.
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, properties, person_properties, timestamp)
    select ${teamId}, gen_random_uuid(),
      case when r < 0.5 then '$pageview' when r < 0.7 then 'signup' when r < 0.8 then 'purchase' else 'other' end,
      'user-' || pid, pid, jsonb_build_object('$current_url', '/page/' || (g % 20)), jsonb_build_object('plan', case when pid % 5 = 0 then 'pro' else 'free' end),
      ${END}::timestamptz - (1 - g::float8 / ${EVENTS}) * ${DAYS} * interval '1 day'
    from (select g, random() as r, ${first} + (hashint4(g) & 2147483647) % ${PERSONS} as pid from generate_series(1, ${EVENTS}) g) s`.execute(db);
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

async function main() {
  const pgUrl = args.db === 'pglite' ? null : args.url;
  const handle = await openBenchDatabase(pgUrl);
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
  const results = [
    await time('baseline: count(*) of the last week', count('2024-01-25')),
    await time('baseline: count(*) of the month', count('2024-01-02')),
    await time('trends persons, one day bucket', () => get('trends', { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-15', date_to: '2024-01-15' })),
    await time('trends persons, last week (ActionsTable)', () => get('trends', { entity_id: '$pageview', entity_type: 'events', display: 'ActionsTable' })),
    await time('trends persons, month (ActionsTable)', () => get('trends', { entity_id: '$pageview', entity_type: 'events', display: 'ActionsTable', ...month })),
    await time('funnel persons, 3 steps, last week, step 3', () => get('funnel', { events: steps, funnel_step: '3' })),
    await time('funnel persons, 3 steps, month, step 3', () => get('funnel', { events: steps, funnel_step: '3', ...month })),
    await time('funnel persons, 3 steps, month, drop-off -2', () => get('funnel', { events: steps, funnel_step: '-2', ...month })),
    await time('lifecycle persons, last week, dormant', () => get('lifecycle', { events: [{ id: '$pageview' }], target_date: '2024-01-28', lifecycle_type: 'dormant' })),
    await time('lifecycle persons, month, dormant', () => get('lifecycle', { events: [{ id: '$pageview' }], target_date: '2024-01-15', lifecycle_type: 'dormant', ...month })),
  ];
  // Each figure beside the count(*) of its own range: the month baseline for month-wide queries.
  const [week, month_] = results;
  const baselineOf = (label: string) => (label.includes('month') ? month_ : week);
  printTable(
    `${describeDatabase(pgUrl)}: ${EVENTS} events, ${PERSONS} persons (seeded in ${(seedMs / 1000).toFixed(1)} s), ${RUNS} runs each`,
    results.map((result) => ({
      query: result.label,
      'rows / persons on the page': result.found,
      'p50 ms': result.p50.toFixed(1),
      'p95 ms': result.p95.toFixed(1),
      'p50 / baseline': ratio(result.p50, baselineOf(result.label).p50),
    })),
  );
  await app.close();
  await handle.close();
}

await main();
