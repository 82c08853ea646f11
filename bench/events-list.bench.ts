// The events list (`GET /events/`) by keyset: seeds N events over a month (one person per 10
// events), then times through the real app the first page and the page 100 deep (limit 100, found
// by following `next`), unfiltered and for one event name, each beside hand-written SQL of the same
// page (the baseline, timed by turns with it). The OFFSET form of the deep page shows what offset
// paging would cost instead. Prints the query plans of the deep page on request (--explain).
//   node bench/events-list.bench.ts --events 1000000
//   node bench/events-list.bench.ts --db pglite --events 100000
//   node bench/events-list.bench.ts --db citus --url postgres://root@127.0.0.1:56400/herd_bench_events --workers 127.0.0.1:56401,127.0.0.1:56402
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import type { DatabaseHandle } from '../src/db/database.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { SEED_END, seedAnalytics } from './analytics-seed.ts';
import {
  DEFAULT_CITUS_WORKERS,
  describeCitus,
  describeDatabase,
  median,
  openBenchDatabase,
  openCitusBenchDatabase,
  printTable,
  ratio,
  timeByTurns,
  type Row,
} from './lib.ts';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres' },
    url: { type: 'string', default: 'postgres://root@/herd_bench_events?host=/var/run/postgresql' },
    workers: { type: 'string', default: DEFAULT_CITUS_WORKERS },
    events: { type: 'string', default: '1000000' },
    runs: { type: 'string', default: '15' },
    depth: { type: 'string', default: '100' },
    explain: { type: 'boolean', default: false },
  },
});
const EVENTS = Number(args.events);
const RUNS = Number(args.runs);
const DEPTH = Number(args.depth);
const LIMIT = 100;

async function open(): Promise<{ handle: DatabaseHandle; label: string; url: string | null }> {
  if (args.db === 'pglite') return { handle: await openBenchDatabase(null), label: describeDatabase(null), url: null };
  if (args.db === 'citus')
    return {
      handle: await openCitusBenchDatabase(args.url, args.workers),
      label: describeCitus(args.url, args.workers),
      url: args.url,
    };
  return { handle: await openBenchDatabase(args.url), label: describeDatabase(args.url), url: args.url };
}

/** The view and its baseline by turns; the median of each. */
async function paired(view: () => Promise<unknown>, baseline: () => Promise<unknown>) {
  const samples = await timeByTurns(view, baseline, RUNS);
  return { view: median(samples.view), baseline: median(samples.baseline) };
}

async function main() {
  const { handle, label, url } = await open();
  const tenant = await makeTenant(handle.db);
  const teamId = tenant.project.id;
  const seedMs = await seedAnalytics(handle, teamId, EVENTS, Math.max(1, Math.round(EVENTS / 10)));
  const config = defaultConfig({ rateLimit: false, databaseUrl: url });
  const app = await buildApp({ db: handle.db, config, clock: { now: () => SEED_END }, log: createLogger('silent') });
  const get = async (path: string) => {
    const res = await app.inject({ method: 'GET', url: path, headers: tenant.headers });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json() as { next: string | null; results: { id: string }[] };
  };
  const relative = (link: string) => {
    const parsed = new URL(link);
    return `${parsed.pathname}${parsed.search}`;
  };

  // The hand-written page: the same columns, bounds and order, the persons of the page beside it.
  const handPage = async (event: string | null, cursor: { timestamp: string; uuid: string } | null, offset = 0) => {
    const rows = await sql<{
      person_id: number | null;
    }>`select uuid, event, distinct_id, properties, timestamp, person_id
      from events where team_id = ${teamId}
      ${event === null ? sql`` : sql`and event = ${event}`}
      ${cursor === null ? sql`` : sql`and timestamp <= ${cursor.timestamp}::timestamptz and (timestamp, uuid) < (${cursor.timestamp}::timestamptz, ${cursor.uuid}::uuid)`}
      order by timestamp desc, uuid desc limit ${LIMIT + 1} offset ${offset}`.execute(handle.db);
    const ids = [...new Set(rows.rows.map((row) => row.person_id).filter((id) => id !== null))];
    if (ids.length > 0)
      await sql`select id, is_identified, properties from persons where team_id = ${teamId} and id in (${sql.join(ids)})`.execute(
        handle.db,
      );
    return rows.rows;
  };

  const rows: Row[] = [];
  for (const event of [null, '$pageview']) {
    const first = `/api/projects/${teamId}/events/?limit=${LIMIT}${event ? `&event=${encodeURIComponent(event)}` : ''}`;
    // Down to the page DEPTH deep by `next`, timing the walk.
    let link = first;
    const walkStart = performance.now();
    for (let page = 1; page < DEPTH; page++) {
      const body = await get(link);
      if (!body.next) throw new Error(`only ${page} pages`);
      link = relative(body.next);
    }
    const walkMs = (performance.now() - walkStart) / (DEPTH - 1);
    const cursorText = new URL(link, 'http://x').searchParams.get('cursor') ?? '';
    const [timestamp, uuid] = cursorText.split(',');
    const name = event ? `event=${event}` : 'no filter';
    const top = await paired(
      () => get(first),
      () => handPage(event, null),
    );
    rows.push({
      list: name,
      page: '1st',
      'herd p50 ms': top.view.toFixed(2),
      'SQL p50 ms': top.baseline.toFixed(2),
      ratio: ratio(top.view, top.baseline),
    });
    const deep = await paired(
      () => get(link),
      () => handPage(event, { timestamp, uuid }),
    );
    rows.push({
      list: name,
      page: `${DEPTH}th`,
      'herd p50 ms': deep.view.toFixed(2),
      'SQL p50 ms': deep.baseline.toFixed(2),
      ratio: ratio(deep.view, deep.baseline),
    });
    const offset = await paired(
      () => get(link),
      () => handPage(event, null, (DEPTH - 1) * LIMIT),
    );
    rows.push({
      list: name,
      page: `${DEPTH}th by OFFSET (SQL)`,
      'herd p50 ms': offset.view.toFixed(2),
      'SQL p50 ms': offset.baseline.toFixed(2),
      ratio: ratio(offset.view, offset.baseline),
    });
    rows.push({
      list: name,
      page: `walk 1→${DEPTH}, per page`,
      'herd p50 ms': walkMs.toFixed(2),
      'SQL p50 ms': '',
      ratio: '',
    });
    if (args.explain) {
      const plan = await sql<{
        'QUERY PLAN': string;
      }>`explain (analyze, costs off, timing off) select uuid, event, distinct_id, properties, timestamp, person_id
        from events where team_id = ${teamId} ${event === null ? sql`` : sql`and event = ${event}`}
        and timestamp <= ${timestamp}::timestamptz and (timestamp, uuid) < (${timestamp}::timestamptz, ${uuid}::uuid)
        order by timestamp desc, uuid desc limit ${LIMIT + 1}`.execute(handle.db);
      process.stdout.write(
        `\nplan of the ${DEPTH}th page (${name}):\n${plan.rows.map((row) => row['QUERY PLAN']).join('\n')}\n`,
      );
    }
  }
  printTable(
    `events list, ${EVENTS.toLocaleString('en-US')} events (seeded in ${(seedMs / 1000).toFixed(0)} s), ${label}, limit ${LIMIT}, ${RUNS} runs by turns`,
    rows,
  );
  await app.close();
  await handle.close();
}

await main();
