// The cost of a request that moves N events to another person, N = 10, 1 000, 100 000, through
// the real app (`POST /batch/`, app.inject), on one PostgreSQL and on a Citus cluster in the same
// run, the databases (and the code versions) taking turns repetition by repetition:
// - merge: a person with N events (distinct id `anon`) and another (`user`), then `$identify` of
//   `user` with `$anon_distinct_id: anon`: the anonymous person's N events move to `user`;
// - link: N personless events of a visitor, then `$identify` of a new user with that visitor as
//   `$anon_distinct_id`: the N events move to the person the visitor now is.
// Each repetition is on fresh persons. Beside each, the baseline measured in the same turn: the
// same `$identify` request whose anonymous id has no events (it only attaches the id). After each
// move the bench counts the N events under the surviving person (`person_id`, and `person_key`
// where the schema has it) and none left behind, and stops if not. Events beyond the first of each
// person are written by one `insert … select` (setup, not timed).
//   node bench/merge-move.bench.ts --pg "postgres://root@/herd_bench?host=/var/run/postgresql"
//   node bench/merge-move.bench.ts --pg "postgres://root@/herd_bench?host=/var/run/postgresql" \
//     --citus postgres://root@127.0.0.1:55432/herd_bench [--citus-workers 127.0.0.1:55433,127.0.0.1:55434]
//   [--base ../other-checkout --pg-base "postgres://…/herd_bench_base" [--citus-base postgres://…:55432/herd_bench_base]]
//     (the same, beside the code of another checkout — say one from before migration 0018 — each
//     on a database of its own migrated by its own migrations; that checkout needs its node_modules)
//   [--sizes 10,1000,100000] [--runs 3] [--background 100000]
//   [--statement-timeout-ms 300000]: capture's limit per statement (STATEMENT_TIMEOUT_MS, 5 000 by
//     default), so that a move slower than herd's default is timed rather than answered 504
// Each PostgreSQL database given is emptied first; each Citus database is made anew on every node.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/db/database.ts';
import type { App } from '../src/http/route-module.ts';
import type { Deps } from '../src/deps.ts';
import type { TeamRow } from '../src/db/schema.ts';
import { personlessKeySql } from '../src/db/person-key.ts';
import {
  DEFAULT_CITUS_WORKERS,
  freshBenchDatabase,
  median,
  printTable,
  ratio,
  timed,
  type DatabaseCode,
  type Row,
} from './lib.ts';

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
    citus: { type: 'string' },
    'citus-workers': { type: 'string', default: DEFAULT_CITUS_WORKERS },
    base: { type: 'string' },
    'pg-base': { type: 'string' },
    'citus-base': { type: 'string' },
    sizes: { type: 'string', default: '10,1000,100000' },
    runs: { type: 'string', default: '3' },
    background: { type: 'string', default: '100000' },
    'statement-timeout-ms': { type: 'string' },
  },
});
if (!args.pg) throw new Error('--pg <url of a PostgreSQL database the bench may empty> is required');
if (args.base && !args['pg-base']) throw new Error('--base is measured on its own databases: give --pg-base too');
if (args.base && args.citus && !args['citus-base']) throw new Error('--base beside --citus: give --citus-base too');
const SIZES = args.sizes.split(',').map(Number);
const RUNS = Number(args.runs);
const BACKGROUND = Number(args.background);
/** STATEMENT_TIMEOUT_MS of both apps (capture's per-statement limit; herd's default when absent). */
const STATEMENT_TIMEOUT_MS = args['statement-timeout-ms'] ? Number(args['statement-timeout-ms']) : null;
if (SIZES.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--sizes: positive integers, comma-separated');

/** What the bench calls in one checkout's code (its own or the base's). */
interface Modules extends DatabaseCode {
  buildApp: (deps: Deps) => Promise<App>;
  defaultConfig: (overrides?: Partial<Deps['config']>) => Deps['config'];
  systemClock: Deps['clock'];
  createLogger: (level: string) => Deps['log'];
  makeTenant: (db: DatabaseHandle['db']) => Promise<{ project: TeamRow }>;
}

async function modulesOf(root: string): Promise<Modules> {
  const load = (file: string) => import(pathToFileURL(path.resolve(root, file)).href);
  const [app, config, database, migrate, deps, log, factories] = await Promise.all(
    [
      'src/app.ts',
      'src/config.ts',
      'src/db/database.ts',
      'src/db/migrate.ts',
      'src/deps.ts',
      'src/log.ts',
      'test/helpers/factories.ts',
    ].map(load),
  );
  return {
    buildApp: app.buildApp,
    defaultConfig: config.defaultConfig,
    openPostgres: database.openPostgres,
    migrateToLatest: migrate.migrateToLatest,
    systemClock: deps.systemClock,
    createLogger: log.createLogger,
    makeTenant: factories.makeTenant,
  };
}

type Flow = 'merge' | 'link';
const FLOWS: Flow[] = ['merge', 'link'];

interface Side {
  database: string;
  code: string;
  handle: DatabaseHandle;
  app: App;
  team: TeamRow;
  /** Whether events have `person_key` (migration 0018 on). */
  keyed: boolean;
  /** ms by `${flow}:${n}:move` and `${flow}:${n}:baseline`. */
  samples: Map<string, number[]>;
}

async function openSide(modules: Modules, code: string, database: string, url: string, citus: boolean): Promise<Side> {
  const handle = await freshBenchDatabase(url, citus ? args['citus-workers'] : null, modules);
  const config = modules.defaultConfig();
  const deps: Deps = {
    db: handle.db,
    config:
      STATEMENT_TIMEOUT_MS === null
        ? config
        : modules.defaultConfig({
            statementTimeoutMs: { default: STATEMENT_TIMEOUT_MS, analytics: config.statementTimeoutMs.analytics },
          }),
    clock: modules.systemClock,
    log: modules.createLogger('silent'),
  };
  const app = await modules.buildApp(deps);
  const team = (await modules.makeTenant(handle.db)).project;
  const columns = await sql<{ n: number }>`select count(*)::integer as n from information_schema.columns
    where table_schema = 'public' and table_name = 'events' and column_name = 'person_key'`.execute(handle.db);
  const side: Side = { database, code, handle, app, team, keyed: columns.rows[0].n === 1, samples: new Map() };
  // Other visitors' events around the measured ones, so the events table is not tiny.
  for (let i = 0; i < BACKGROUND; i += 10_000) await insertEvents(side, null, null, Math.min(10_000, BACKGROUND - i));
  await sql`analyze`.execute(handle.db);
  return side;
}

/**
 * `count` $pageviews written directly (setup): under `distinctId` and `personId` (null: personless),
 * or, without a distinct id, personless events of 1 000 `crowd-…` visitors.
 */
async function insertEvents(side: Side, distinctId: string | null, personId: number | null, count: number) {
  if (count <= 0) return;
  const id = distinctId === null ? sql<string>`'crowd-' || (g % 1000)` : sql<string>`${distinctId}::text`;
  const person = sql<number | null>`${personId}::bigint`;
  const key = side.keyed ? sql`, coalesce(${person}, ${personlessKeySql(id)})` : sql``;
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id ${side.keyed ? sql`, person_key` : sql``},
      properties, person_properties, timestamp)
    select ${side.team.id}::integer, gen_random_uuid(), '$pageview', ${id}, ${person} ${key},
      jsonb_build_object('$current_url', 'https://example.com/page/' || (g % 50), '$lib', 'bench'), '{}'::jsonb,
      now() - make_interval(secs => g)
    from generate_series(1, ${count}::integer) as g`.execute(side.handle.db);
}

async function post(side: Side, batch: object[]): Promise<void> {
  const response = await side.app.inject({
    method: 'POST',
    url: '/batch/',
    headers: { 'content-type': 'application/json' },
    payload: { api_key: side.team.api_token, batch },
  });
  if (response.statusCode !== 200)
    throw new Error(`${side.code} on ${side.database}: capture answered ${response.statusCode}: ${response.body}`);
}

async function personOf(side: Side, distinctId: string): Promise<number> {
  const { rows } = await sql<{ person_id: number | null }>`select person_id from person_distinct_ids
    where team_id = ${side.team.id}::integer and distinct_id = ${distinctId}::text`.execute(side.handle.db);
  const personId = rows[0]?.person_id;
  if (personId == null) throw new Error(`${side.code} on ${side.database}: ${distinctId} has no person`);
  return Number(personId);
}

const signedUp = (distinctId: string) => ({
  event: 'signed up',
  distinct_id: distinctId,
  properties: { $lib: 'bench', $set: { email: `${distinctId}@example.com`, plan: 'free' } },
});
const pageview = (distinctId: string) => ({
  event: '$pageview',
  distinct_id: distinctId,
  properties: { $lib: 'bench', $current_url: 'https://example.com/', $process_person_profile: false },
});
const identify = (user: string, anon: string) => ({
  event: '$identify',
  distinct_id: user,
  properties: { $lib: 'bench', $anon_distinct_id: anon, $set: { email: `${user}@example.com` } },
});

/** Fails loudly unless all `n` events of `distinctId` now belong to `personId` (by id and by key). */
async function checkMoved(side: Side, distinctId: string, personId: number, formerPersonId: number | null, n: number) {
  const keyed = side.keyed ? sql`and person_key = ${personId}::bigint` : sql``;
  const { rows } = await sql<{ total: number; moved: number; former: number }>`select
      (select count(*)::integer from events where team_id = ${side.team.id}::integer and distinct_id = ${distinctId}::text)
        as total,
      (select count(*)::integer from events where team_id = ${side.team.id}::integer and distinct_id = ${distinctId}::text
        and person_id = ${personId}::bigint ${keyed}) as moved,
      (select count(*)::integer from events where team_id = ${side.team.id}::integer
        and person_id = ${formerPersonId ?? -1}::bigint) as former`.execute(side.handle.db);
  const { total, moved, former } = rows[0];
  if (total !== n || moved !== n || former !== 0)
    throw new Error(
      `${side.code} on ${side.database}: after the move ${distinctId} has ${total} events, ${moved} of them under person ${personId} (want ${n} and ${n}), ${former} left under the former person`,
    );
}

/** One repetition of `flow` with `n` events on fresh persons; answers the ms of the baseline and of the move. */
async function repetition(side: Side, flow: Flow, n: number, tag: string): Promise<{ baseline: number; move: number }> {
  const user = `${flow}-user-${n}-${tag}`;
  const anon = `${flow}-anon-${n}-${tag}`;
  const fresh = `${flow}-fresh-${n}-${tag}`;
  if (flow === 'merge') {
    // Two persons, the anonymous one with n events; the user is identified by the baseline request.
    await post(side, [signedUp(anon), signedUp(user)]);
    const anonPerson = await personOf(side, anon);
    await insertEvents(side, anon, anonPerson, n - 1);
    const baseline = (await timed(() => post(side, [identify(user, fresh)]))).ms;
    const move = (await timed(() => post(side, [identify(user, anon)]))).ms;
    const userPerson = await personOf(side, user);
    if ((await personOf(side, anon)) !== userPerson) throw new Error(`${anon} was not merged into ${user}`);
    await checkMoved(side, anon, userPerson, anonPerson, n);
    return { baseline, move };
  }
  // A visitor's n personless events (the first through capture: it holds the id's placeholder).
  await post(side, [pageview(anon)]);
  await insertEvents(side, anon, null, n - 1);
  const baseline = (await timed(() => post(side, [identify(`${user}-b`, fresh)]))).ms;
  const move = (await timed(() => post(side, [identify(user, anon)]))).ms;
  await checkMoved(side, anon, await personOf(side, user), null, n);
  return { baseline, move };
}

function record(side: Side, key: string, ms: number) {
  const list = side.samples.get(key) ?? [];
  list.push(ms);
  side.samples.set(key, list);
}

const TITLES: Record<Flow, string> = {
  merge: 'A merge: $identify of a person with $anon_distinct_id of another that has N events, N',
  link: 'A link: $identify of a new user with $anon_distinct_id of a visitor that sent N personless events, N',
};

/** One row per side: the medians of the baseline and of the move, and the move's cost per event. */
function rowsOf(sides: Side[], flow: Flow, n: number): Row[] {
  return sides.map((side) => {
    const baseline = median(side.samples.get(`${flow}:${n}:baseline`) ?? []);
    const move = median(side.samples.get(`${flow}:${n}:move`) ?? []);
    return {
      database: side.database,
      code: side.code,
      'baseline ms (no move)': baseline.toFixed(1),
      'request ms': move.toFixed(1),
      'vs baseline': ratio(move, baseline),
      'µs per moved event': (((move - baseline) * 1000) / n).toFixed(1),
    };
  });
}

async function main() {
  const own = await modulesOf(path.resolve(import.meta.dirname, '..'));
  const base = args.base ? await modulesOf(args.base) : null;
  const sides: Side[] = [];
  const pgName = 'PostgreSQL';
  const citusName = 'Citus 3 nodes';
  sides.push(await openSide(own, 'this checkout', pgName, args.pg as string, false));
  if (base) sides.push(await openSide(base, args.base as string, pgName, args['pg-base'] as string, false));
  if (args.citus) {
    sides.push(await openSide(own, 'this checkout', citusName, args.citus, true));
    if (base) sides.push(await openSide(base, args.base as string, citusName, args['citus-base'] as string, true));
  }
  // Warm-up (JIT, plans, caches): one small repetition of each flow on each side, not recorded.
  for (const side of sides) for (const flow of FLOWS) await repetition(side, flow, 10, 'warm');

  let turn = 0;
  for (const n of SIZES) {
    for (let run = 0; run < RUNS; run++) {
      for (const flow of FLOWS) {
        // The sides take turns, in an order that alternates, so the machine's load falls on all alike.
        const order = turn++ % 2 === 0 ? sides : [...sides].reverse();
        for (const side of order) {
          const { baseline, move } = await repetition(side, flow, n, String(run));
          record(side, `${flow}:${n}:baseline`, baseline);
          record(side, `${flow}:${n}:move`, move);
        }
      }
    }
    // Each size's tables as soon as it is measured: a long run shows its small sizes early.
    for (const flow of FLOWS)
      printTable(
        `${TITLES[flow]} = ${n.toLocaleString('en-US')}: medians of ${RUNS} repetitions on fresh persons, POST /batch/`,
        rowsOf(sides, flow, n),
      );
  }
  for (const side of sides) {
    await side.app.close();
    await side.handle.close();
  }
}

await main();
