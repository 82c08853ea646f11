// The query endpoint's cost: HogQL compiled by herd beside hand-written SQL of the same meaning,
// timed by turns in the same run over the analytics seed (N events over a month, one person per
// 10 events): count() by event over the month, and counts by the person's e-mail (the person
// joined). Also the whole request through the app, and the compile step alone (parse, compile,
// SQL text) of a typical query.
//   node bench/query.bench.ts --events 1000000
//   node bench/query.bench.ts --db pglite --events 100000
//   node bench/query.bench.ts --url postgres://…/herd_query_bench --events 1000000 --runs 7
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import { compileQuery } from '../src/hogql/compiler.ts';
import { parseSelect } from '../src/hogql/parser.ts';
import { shareParameters } from '../src/hogql/parameters.ts';
import { createLogger } from '../src/log.ts';
import { executeCompiled } from '../src/query/results.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { SEED_END, seedAnalytics } from './analytics-seed.ts';
import { describeDatabase, median, openBenchDatabase, printTable, ratio } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    url: { type: 'string', default: 'postgres://root@/herd_query_bench?host=/var/run/postgresql' },
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '7' },
    compiles: { type: 'string', default: '20000' },
  },
});
const EVENTS = Number(args.events);
const RUNS = Number(args.runs);
const FROM = '2024-01-02';
const TO = '2024-02-01';

interface Case {
  label: string;
  hogql: string;
  handWritten(teamId: number): RawBuilder<unknown>;
}

const CASES: Case[] = [
  {
    label: 'count() by event over a month',
    hogql: `select event, count() from events where timestamp >= '${FROM}' and timestamp < '${TO}' group by event order by count() desc`,
    handWritten: (teamId) =>
      sql`select event, count(*) from events where team_id = ${teamId}::integer and timestamp >= ${FROM}::timestamptz and timestamp < ${TO}::timestamptz group by event order by count(*) desc limit 101`,
  },
  {
    label: 'counts by person.properties.email over a month (persons joined)',
    hogql: `select person.properties.email, count() from events where timestamp >= '${FROM}' and timestamp < '${TO}' group by person.properties.email order by count() desc`,
    handWritten: (teamId) =>
      sql`select p.properties ->> 'email', count(*) from events e left join persons p on p.team_id = ${teamId}::integer and p.id = e.person_id
        where e.team_id = ${teamId}::integer and e.timestamp >= ${FROM}::timestamptz and e.timestamp < ${TO}::timestamptz
        group by 1 order by 2 desc limit 101`,
  },
  {
    label: "one event's rows of a week, newest first (a page)",
    hogql: `select uuid, distinct_id, timestamp, properties.$current_url from events where event = 'purchase' and timestamp >= '2024-01-25' order by timestamp desc`,
    handWritten: (teamId) =>
      sql`select uuid, distinct_id, timestamp, properties ->> '$current_url' from events where team_id = ${teamId}::integer and event = 'purchase' and timestamp >= '2024-01-25'::timestamptz order by timestamp desc limit 101`,
  },
];

const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

/** Each of `runs` functions once per round, by turns, after a warm-up; answers each one's median ms. */
async function byTurns(runs: (() => Promise<unknown>)[]): Promise<number[]> {
  for (const run of runs) await run();
  const samples = runs.map((): number[] => []);
  for (let round = 0; round < RUNS; round++)
    for (const [index, run] of runs.entries()) {
      const start = performance.now();
      await run();
      samples[index].push(performance.now() - start);
    }
  return samples.map(median);
}

async function main() {
  const pgUrl = args.db === 'pglite' ? null : args.url;
  const handle = await openBenchDatabase(pgUrl);
  const tenant = await makeTenant(handle.db);
  const teamId = tenant.project.id;
  const seedMs = await seedAnalytics(handle, teamId, EVENTS, Math.max(1, Math.round(EVENTS / 10)));
  const app = await buildApp({
    db: handle.db,
    config: defaultConfig({ rateLimit: false, databaseUrl: pgUrl }),
    clock: { now: () => SEED_END },
    log: createLogger('silent'),
  });
  const options = { teamId, timezone: 'UTC', now: SEED_END, values: {} };
  const loadBefore = load();

  const rows = [];
  for (const item of CASES) {
    const compiled = () => executeCompiled(handle.db, compileQuery(parseSelect(item.hogql), options).sql);
    const hand = () => item.handWritten(teamId).execute(handle.db);
    const endpoint = async () => {
      const response = await app.inject({
        method: 'POST',
        url: `/api/projects/${teamId}/query/`,
        headers: tenant.headers,
        payload: { query: { kind: 'HogQLQuery', query: item.hogql } },
      });
      if (response.statusCode !== 200)
        throw new Error(`${item.label}: ${response.statusCode} ${response.body.slice(0, 300)}`);
    };
    // The two answer the same rows (a bench of a wrong query would prove nothing).
    const [a, b] = [await compiled(), (await hand()).rows];
    if (a.length !== b.length) throw new Error(`${item.label}: ${a.length} rows compiled, ${b.length} hand-written`);
    const [handMs, compiledMs, endpointMs] = await byTurns([hand, compiled, endpoint]);
    rows.push({
      query: item.label,
      'hand-written SQL p50 ms': handMs.toFixed(1),
      'compiled HogQL p50 ms': compiledMs.toFixed(1),
      'compiled / hand-written': ratio(compiledMs, handMs),
      'POST /query/ p50 ms': endpointMs.toFixed(1),
    });
  }

  // The compile step alone: parse, compile and print the SQL text with its parameters.
  const typical = CASES[1].hogql;
  const compileOnce = () => shareParameters(compileQuery(parseSelect(typical), options).sql.compile(handle.db));
  for (let i = 0; i < 500; i++) compileOnce();
  const compiles = Number(args.compiles);
  const start = performance.now();
  for (let i = 0; i < compiles; i++) compileOnce();
  const perCompileUs = ((performance.now() - start) / compiles) * 1000;

  printTable(
    `${describeDatabase(pgUrl)}: ${EVENTS} events, ${Math.round(EVENTS / 10)} persons (seeded in ${(seedMs / 1000).toFixed(0)} s), ${RUNS} runs each by turns; load average ${loadBefore} at the start, ${load()} at the end`,
    rows,
  );
  printTable('The compile step alone (parse, compile, SQL text), the persons-joined query', [
    { step: 'parse + compile + SQL text', 'µs per query': perCompileUs.toFixed(1), compiles },
  ]);
  await app.close();
  await handle.close();
}

await main();
