// The persons API at scale: seeds persons (and one distinct id each) with one bulk SQL generator in
// steps (e.g. 10k then 1M), and at each size times retrieve, list pages, a properties filter, a
// search and the streamed CSV export through the real app, each beside the same SQL run directly
// through the driver in the same run.
//   node bench/persons.bench.ts --db postgres --url postgres://root@/herd_bench_persons?host=/var/run/postgresql
//   node bench/persons.bench.ts --db pglite --sizes 10000,100000
//   node bench/persons.bench.ts --db postgres --url … --citus postgres://root@127.0.0.1:55432/herd_bench_persons
//     [--citus-workers 127.0.0.1:55433,127.0.0.1:55434]   (beside it, the same on a 3-node Citus cluster)
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import { openPGlite, openPostgres, type DatabaseHandle } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createLogger } from '../src/log.ts';
import { parsePropertyFilter } from '../src/filters/property-filter.ts';
import {
  countPersons,
  findPerson,
  iteratePersons,
  listPersons,
  type PersonFilters,
} from '../src/modules/persons/persons.repository.ts';
import { makeTenant, type Tenant } from '../test/helpers/factories.ts';
import type { App } from '../src/http/route-module.ts';
import { DEFAULT_CITUS_WORKERS, openCitusBenchDatabase } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    url: { type: 'string', default: 'postgres://root@/herd_bench_persons?host=/var/run/postgresql' },
    sizes: { type: 'string', default: '10000,1000000' },
    runs: { type: 'string', default: '20' },
    csv: { type: 'string', default: 'on' },
    citus: { type: 'string' },
    'citus-workers': { type: 'string', default: DEFAULT_CITUS_WORKERS },
  },
});
const SIZES = args.sizes.split(',').map(Number);
const RUNS = Number(args.runs);
const START = new Date('2024-01-01T00:00:00Z');

async function open(): Promise<DatabaseHandle> {
  if (args.db === 'pglite') return openPGlite({ dataDir: null });
  const handle = await openPostgres(args.url, 4);
  // A clean slate each run: the bench owns this database.
  await sql`drop schema public cascade`.execute(handle.db);
  await sql`create schema public`.execute(handle.db);
  return handle;
}

/** Persons from..to as capture would leave them: properties, a uuid, one distinct id, a creation time. */
async function seed(handle: DatabaseHandle, teamId: number, from: number, to: number) {
  const started = performance.now();
  await sql`insert into persons (team_id, uuid, properties, created_at)
    select ${teamId}::integer, gen_random_uuid(),
      jsonb_build_object('email', 'user' || g || '@example.com', 'name', 'User ' || g,
        'plan', case when g % 5 = 0 then 'pro' else 'free' end, '$browser', case when g % 3 = 0 then 'Firefox' else 'Chrome' end),
      ${START.toISOString()}::timestamptz + g * interval '1 second'
    from generate_series(${from}::integer, ${to}::integer) g`.execute(handle.db);
  await sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select team_id, 'user-' || (properties ->> 'name'), id from persons p
    where team_id = ${teamId}::integer and not exists (select 1 from person_distinct_ids d where d.team_id = p.team_id and d.person_id = p.id)`.execute(
    handle.db,
  );
  await sql`analyze`.execute(handle.db);
  return performance.now() - started;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function time(run: () => Promise<unknown>, runs = RUNS): Promise<number> {
  await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

interface Target {
  label: string;
  handle: DatabaseHandle;
  tenant: Tenant;
  teamId: number;
  app: App;
}

async function prepare(label: string, handle: DatabaseHandle): Promise<Target> {
  const tenant = await makeTenant(handle.db);
  const app = await buildApp({
    db: handle.db,
    config: defaultConfig({ rateLimit: false }),
    clock: { now: () => new Date() },
    log: createLogger('silent'),
  });
  return { label, handle, tenant, teamId: tenant.project.id, app };
}

type Measure = [label: string, api: () => Promise<unknown>, raw: () => Promise<unknown>];

/** The operations of one size on one database, each as the API call and its raw SQL. */
async function operations(target: Target, size: number): Promise<Measure[]> {
  const { app, tenant, teamId } = target;
  const db = target.handle.db;
  const base = `/api/projects/${teamId}/persons`;
  const get = async (url: string) => {
    const res = await app.inject({ method: 'GET', url, headers: tenant.headers });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    return res;
  };
  // The baseline is the same SQL the endpoint runs (count and page, in parallel), through the driver.
  const rawPage = (filters: PersonFilters, offset: number) =>
    Promise.all([countPersons(db, teamId, filters), listPersons(db, teamId, filters, { limit: 100, offset })]);
  const probe = Math.max(1, Math.floor(size / 2));
  const [person] = (
    await sql<{
      id: number;
    }>`select id from persons where team_id = ${teamId}::integer order by id limit 1 offset ${probe - 1}::integer`.execute(
      db,
    )
  ).rows;
  const filter = encodeURIComponent(JSON.stringify([{ key: 'email', value: `user${probe}@`, operator: 'icontains' }]));
  return [
    // The floor every API call pays (key, project and membership checks), beside a trivial query.
    ['auth floor: GET /api/projects/:id/', () => get(`/api/projects/${teamId}/`), () => sql`select 1`.execute(db)],
    ['retrieve by id', () => get(`${base}/${person.id}/`), () => findPerson(db, teamId, { id: person.id })],
    ['list, page 1 (limit 100, with count)', () => get(`${base}/`), () => rawPage({}, 0)],
    ['list, offset 10 000', () => get(`${base}/?offset=10000`), () => rawPage({}, 10_000)],
    [
      'properties: email icontains (1 match)',
      () => get(`${base}/?properties=${filter}`),
      () => rawPage({ properties: parsePropertyFilter(decodeURIComponent(filter)) }, 0),
    ],
    [
      'search (email/name substring, distinct id, uuid)',
      () => get(`${base}/?search=user${probe}@`),
      () => rawPage({ search: `user${probe}@` }, 0),
    ],
  ];
}

/** CSV export of every person beside the export's own reads, as [api rows/s, raw rows/s, exported, api ms / raw ms]. */
async function exportRates(target: Target): Promise<[number, number, number, number]> {
  const db = target.handle.db;
  // One untimed read of every person first: the first scan after a bulk load sets hint bits and
  // warms the cache, which would otherwise be charged to whichever side runs first.
  for await (const chunk of iteratePersons(db, target.teamId, {})) void chunk;
  const started = performance.now();
  const res = await target.app.inject({
    method: 'GET',
    url: `/api/projects/${target.teamId}/persons/?format=csv`,
    headers: target.tenant.headers,
  });
  const apiMs = performance.now() - started;
  const exported = res.body.split('\n').length - 2;
  const rawStarted = performance.now();
  let rawRows = 0;
  for await (const chunk of iteratePersons(db, target.teamId, {})) rawRows += chunk.length;
  const rawMs = performance.now() - rawStarted;
  return [exported / (apiMs / 1000), rawRows / (rawMs / 1000), exported, apiMs / rawMs];
}

async function main() {
  const first = await open();
  await migrateToLatest(first.db);
  const targets = [await prepare(first.kind, first)];
  if (args.citus) targets.push(await prepare('citus', await openCitusBenchDatabase(args.citus, args['citus-workers'])));

  let seeded = 0;
  const lines: string[] = [];
  for (const size of SIZES) {
    const seedMs: number[] = [];
    for (const target of targets) seedMs.push(await seed(target.handle, target.teamId, seeded + 1, size));
    seeded = size;
    const measures = await Promise.all(targets.map((target) => operations(target, size)));
    // Per operation, the databases take turns, so the shared machine's load falls on both alike.
    const timings: [number, number][][] = measures[0].map(() => []);
    for (let i = 0; i < measures[0].length; i++) {
      for (const measure of measures) timings[i].push([await time(measure[i][1]), await time(measure[i][2])]);
    }
    const seeds = targets.map((target, t) => `${target.label} ${(seedMs[t] / 1000).toFixed(1)} s`).join(', ');
    lines.push(
      `\n${targets.map((target) => target.label).join(' beside ')}, ${size.toLocaleString('en')} persons (seeded in ${seeds}), median of ${RUNS} runs\n`,
    );
    if (targets.length === 1) {
      lines.push('| operation | API ms | raw SQL ms | ratio |', '|---|---:|---:|---:|');
      measures[0].forEach(([label], i) => {
        const [api, raw] = timings[i][0];
        lines.push(`| ${label} | ${api.toFixed(2)} | ${raw.toFixed(2)} | ${(api / raw).toFixed(2)} |`);
      });
    } else {
      lines.push(
        '| operation | PostgreSQL API ms | raw SQL ms | Citus API ms | raw SQL ms | Citus / PostgreSQL (API) |',
        '|---|---:|---:|---:|---:|---:|',
      );
      measures[0].forEach(([label], i) => {
        const [[api, raw], [citusApi, citusRaw]] = timings[i];
        lines.push(
          `| ${label} | ${api.toFixed(2)} | ${raw.toFixed(2)} | ${citusApi.toFixed(2)} | ${citusRaw.toFixed(2)} | ${(citusApi / api).toFixed(2)} |`,
        );
      });
    }
    if (args.csv === 'on') {
      for (const target of targets) {
        const [api, raw, exported, ratio] = await exportRates(target);
        lines.push(
          `| ${target.label}: CSV export, every person (${exported.toLocaleString('en')} rows) | ${api.toFixed(0)} rows/s | ${raw.toFixed(0)} rows/s (the export's reads, one pass) | ${ratio.toFixed(2)} |`,
        );
      }
    }
    console.log(lines.slice(-(measures[0].length + 3 + (args.csv === 'on' ? targets.length : 0))).join('\n'));
  }
  console.log(lines.join('\n'));
  for (const target of targets) {
    await target.app.close();
    await target.handle.close();
  }
}

await main();
