// Where events live on Citus: the same N events of one project in three tables of one cluster,
// each distributed by distinct id — heap (what herd uses), Citus columnar, and heap in monthly
// time partitions — with the month's shapes of the views (per-person counts, per-person days, the
// funnel's step events) timed on each in turn, their size, and what herd's writes to old events
// (a merge's person_id update, the deletion batch's delete) do on each.
//   node bench/events-storage.bench.ts --url postgres://root@127.0.0.1:55432/herd_bench_storage
//     [--workers 127.0.0.1:55433,127.0.0.1:55434] [--events 1000000] [--persons 100000]
import { parseArgs } from 'node:util';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../src/db/database.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import {
  DEFAULT_CITUS_WORKERS,
  describeCitus,
  median,
  openCitusBenchDatabase,
  printTable,
  ratio,
  timed,
} from './lib.ts';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://root@127.0.0.1:55432/herd_bench_storage' },
    workers: { type: 'string', default: DEFAULT_CITUS_WORKERS },
    events: { type: 'string', default: '1000000' },
    persons: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '7' },
  },
});
const EVENTS = Number(args.events);
const PERSONS = Number(args.persons);
const RUNS = Number(args.runs);

const TABLES = ['events', 'events_columnar', 'events_monthly'] as const;
type Table = (typeof TABLES)[number];

async function seed(db: Db, teamId: number): Promise<void> {
  // The analytics bench's mix: half pageviews, then signups, purchases and noise, over 30 days up
  // to 2024-02-01 in arrival order, each from a pseudo-random person.
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
    select ${teamId}, gen_random_uuid(),
      case when r < 0.5 then '$pageview' when r < 0.7 then 'signup' when r < 0.8 then 'purchase' else 'other' end,
      'user-' || pid, pid, pid, jsonb_build_object('$current_url', '/page/' || (g % 20)), jsonb_build_object('plan', case when pid % 5 = 0 then 'pro' else 'free' end),
      '2024-02-01'::timestamptz - (1 - g::float8 / ${EVENTS}) * 30 * interval '1 day'
    from (select g, (hashint4(g # 1234567) & 2147483647)::float8 / 2147483648 as r, 1 + (hashint4(g) & 2147483647) % ${PERSONS} as pid
      from generate_series(1, ${EVENTS}) g) s`.execute(db);
  // Columnar: no foreign keys, no unique keys herd could rely on for its writes; the view's index only.
  await sql`create extension if not exists citus_columnar`.execute(db);
  await sql`create table events_columnar (like events including defaults) using columnar`.execute(db);
  await sql`select create_distributed_table('events_columnar', 'distinct_id', colocate_with => 'events')`.execute(db);
  await sql`insert into events_columnar select * from events`.execute(db);
  await sql`create index on events_columnar (team_id, event, timestamp) include (person_id, id)`.execute(db);
  // Monthly partitions: every unique key must then contain the timestamp as well.
  await sql`create table events_monthly (like events including defaults) partition by range (timestamp)`.execute(db);
  for (const month of ['2023-12', '2024-01', '2024-02']) {
    const from = `${month}-01`;
    await sql`create table ${sql.id(`events_monthly_${month.replace('-', '_')}`)} partition of events_monthly
      for values from (${sql.lit(from)}) to (${sql.lit(`${month === '2024-02' ? '2024-03' : month === '2024-01' ? '2024-02' : '2024-01'}-01`)})`.execute(
      db,
    );
  }
  await sql`alter table events_monthly add primary key (team_id, distinct_id, id, timestamp)`.execute(db);
  await sql`create index on events_monthly (team_id, event, timestamp) include (person_id, id)`.execute(db);
  await sql`create index on events_monthly (team_id, person_id, timestamp)`.execute(db);
  await sql`select create_distributed_table('events_monthly', 'distinct_id', colocate_with => 'events')`.execute(db);
  await sql`insert into events_monthly select * from events`.execute(db);
  await sql`vacuum analyze`.execute(db);
}

const MONTH = sql`timestamp >= '2024-01-02' and timestamp < '2024-02-01'`;

/** The month's shapes of the views, over one table. */
function shapes(table: Table, teamId: number): [string, RawBuilder<unknown>][] {
  const t = sql.table(table);
  return [
    ['count(*) of the month', sql`select count(*) from ${t} where team_id = ${teamId} and ${MONTH}`],
    [
      'trends: pageviews per person, top 100',
      sql`select person_id, count(*) from ${t} where team_id = ${teamId} and event = '$pageview' and ${MONTH}
      group by person_id order by count(*) desc, person_id limit 100`,
    ],
    [
      'lifecycle: distinct (person, day) of pageviews',
      sql`select count(*) from (select distinct person_id, date_trunc('day', timestamp) from ${t}
      where team_id = ${teamId} and event = '$pageview' and ${MONTH}) d`,
    ],
    [
      "funnel: each person's first signup after a pageview",
      sql`select count(*) from (select person_id, min(timestamp) filter (where event = 'signup') as s,
      min(timestamp) filter (where event = '$pageview') as p from ${t} where team_id = ${teamId} and event in ('$pageview', 'signup') and ${MONTH}
      group by person_id) f where s > p`,
    ],
  ];
}

const ROLLBACK = new Error('rolled back');

/** What herd's writes to stored events do on a table: the time (then rolled back), or the error. */
async function tryWrite(db: Db, statement: RawBuilder<unknown>): Promise<string> {
  const started = performance.now();
  let ms = 0;
  try {
    await db.transaction().execute(async (trx) => {
      await statement.execute(trx);
      ms = performance.now() - started;
      throw ROLLBACK;
    });
  } catch (error) {
    if (error !== ROLLBACK) return `fails: ${(error as Error).message.slice(0, 70)}`;
  }
  return `${ms.toFixed(0)} ms`;
}

async function main() {
  const handle = await openCitusBenchDatabase(args.url, args.workers, 4);
  const { db } = handle;
  const tenant = await makeTenant(db);
  const teamId = tenant.project.id;
  const seedMs = (await timed(() => seed(db, teamId))).ms;
  const byTable = Object.fromEntries(TABLES.map((table) => [table, shapes(table, teamId)])) as Record<
    Table,
    [string, RawBuilder<unknown>][]
  >;
  const rows = [];
  for (let i = 0; i < byTable.events.length; i++) {
    const samples: Record<Table, number[]> = { events: [], events_columnar: [], events_monthly: [] };
    for (const table of TABLES) await byTable[table][i][1].execute(db);
    // The tables take turns run by run, so the shared machine's load falls on all alike.
    for (let run = 0; run < RUNS; run++) {
      for (const table of TABLES) samples[table].push((await timed(() => byTable[table][i][1].execute(db))).ms);
    }
    const heap = median(samples.events);
    rows.push({
      query: byTable.events[i][0],
      'heap p50 ms': heap.toFixed(1),
      'columnar p50 ms': median(samples.events_columnar).toFixed(1),
      'columnar / heap': ratio(median(samples.events_columnar), heap),
      'monthly partitions p50 ms': median(samples.events_monthly).toFixed(1),
      'partitions / heap': ratio(median(samples.events_monthly), heap),
    });
  }
  printTable(
    `Events storage on ${describeCitus(args.url, args.workers)}: ${EVENTS} events, ${PERSONS} persons (seeded in ${(seedMs / 1000).toFixed(0)} s), median of ${RUNS}`,
    rows,
  );

  // A partitioned table's size is that of its partitions.
  const sizes = await sql<{ table: string; size: string }>`select t as table, pg_size_pretty(coalesce(
      (select sum(citus_total_relation_size(inhrelid))::bigint from pg_inherits where inhparent = t::regclass),
      citus_total_relation_size(t::regclass))) as size
    from unnest(${[...TABLES]}::text[]) t`.execute(db);
  const writes = [];
  for (const table of TABLES) {
    const t = sql.table(table);
    writes.push({
      table,
      'size (table + indexes)': sizes.rows.find((row) => row.table === table)?.size ?? '',
      "merge: a person's events to another": await tryWrite(
        db,
        sql`update ${t} set person_id = 2 where team_id = ${teamId} and person_id = 1`,
      ),
      "deletion batch: a person's events": await tryWrite(
        db,
        sql`delete from ${t} where team_id = ${teamId} and person_id = 3`,
      ),
    });
  }
  printTable("Sizes, and herd's writes to stored events (each rolled back)", writes);
  await handle.close();
}

await main();
