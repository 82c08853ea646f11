// Capture A/B against the code of another checkout (say main's): both ingestEvents in one process,
// each on a database of its own migrated by its own migrations, taking turns batch by batch in
// alternating order, so the shared machine's load falls on both alike. Prints the median time per
// batch of each side and their ratio.
//   node bench/capture-ab.bench.ts --base /work/main [--anonymous 0.5] [--batches 400]
//   node bench/capture-ab.bench.ts --base /work/main --pg "postgres://…/herd_bench" --pg-base "postgres://…/herd_bench_base"
//   … --citus postgres://root@127.0.0.1:55432/herd_bench --citus-base postgres://root@127.0.0.1:55432/herd_bench_base \
//     [--citus-workers 127.0.0.1:55433,127.0.0.1:55434]   (with --pg and --pg-base: the four sides — each
//     code on PostgreSQL and on a Citus cluster — take turns batch by batch)
// The other checkout needs its node_modules. Each PostgreSQL database given is emptied first; each
// Citus database is made anew on every node, then migrated (and distributed) by its side's code.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { defaultConfig } from '../src/config.ts';
import * as ownDatabase from '../src/db/database.ts';
import type { DatabaseHandle } from '../src/db/database.ts';
import * as ownMigrate from '../src/db/migrate.ts';
import { systemClock, type Deps } from '../src/deps.ts';
import * as ownIngest from '../src/ingestion/ingest.ts';
import { createLogger } from '../src/log.ts';
import * as ownFactories from '../test/helpers/factories.ts';
import { captureBatches, seedBatches } from './capture-batches.ts';
import {
  DEFAULT_CITUS_WORKERS,
  describeCitus,
  describeDatabase,
  freshBenchDatabase,
  formatRate,
  median,
  printTable,
  ratio,
} from './lib.ts';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    pg: { type: 'string' },
    'pg-base': { type: 'string' },
    citus: { type: 'string' },
    'citus-base': { type: 'string' },
    'citus-workers': { type: 'string', default: DEFAULT_CITUS_WORKERS },
    anonymous: { type: 'string', default: '0' },
    batches: { type: 'string', default: '400' },
    existing: { type: 'string', default: '5000' },
  },
});
if (!args.base) throw new Error('--base <path of the other checkout> is required');
if (Boolean(args.pg) !== Boolean(args['pg-base'])) throw new Error('give both --pg and --pg-base, or neither (PGlite)');
if (Boolean(args.citus) !== Boolean(args['citus-base']))
  throw new Error('give both --citus and --citus-base, or neither');
if (args.citus && !args.pg) throw new Error('--citus is measured beside PostgreSQL: give --pg and --pg-base too');
const BATCHES = Number(args.batches);
const options = { batch: 100, existing: Number(args.existing), anonymous: Number(args.anonymous) };

interface Modules {
  database: typeof ownDatabase;
  migrate: typeof ownMigrate;
  ingest: typeof ownIngest;
  factories: typeof ownFactories;
}

async function modulesOf(root: string): Promise<Modules> {
  const load = (file: string) => import(pathToFileURL(path.resolve(root, file)).href);
  return {
    database: await load('src/db/database.ts'),
    migrate: await load('src/db/migrate.ts'),
    ingest: await load('src/ingestion/ingest.ts'),
    factories: await load('test/helpers/factories.ts'),
  };
}

/** A migrated database with a tenant and its existing persons; answers a function that ingests one batch. */
async function openSide(modules: Modules, url: string | null, citus = false) {
  const code = { openPostgres: modules.database.openPostgres, migrateToLatest: modules.migrate.migrateToLatest };
  let handle: DatabaseHandle;
  if (url) handle = await freshBenchDatabase(url, citus ? args['citus-workers'] : null, code);
  else {
    handle = await modules.database.openPGlite({ dataDir: null });
    await modules.migrate.migrateToLatest(handle.db);
  }
  const deps: Deps = { db: handle.db, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
  const team = (await modules.factories.makeTenant(handle.db)).project;
  for (const batch of seedBatches(options.existing)) await modules.ingest.ingestEvents(deps, handle.db, team, batch);
  await sql`analyze`.execute(handle.db);
  return {
    ingest: (batch: ownIngest.CaptureEvent[]) => modules.ingest.ingestEvents(deps, handle.db, team, batch),
    close: () => handle.close(),
  };
}

const ownModules = { database: ownDatabase, migrate: ownMigrate, ingest: ownIngest, factories: ownFactories };
const baseModules = await modulesOf(args.base);
/** Each database's pair of sides: the base code's and this checkout's, each on a database of its own. */
const databases = [
  {
    label: describeDatabase(args.pg ?? null),
    base: await openSide(baseModules, args['pg-base'] ?? null),
    own: await openSide(ownModules, args.pg ?? null),
    ms: { base: [] as number[], own: [] as number[] },
  },
];
if (args.citus && args['citus-base'])
  databases.push({
    label: describeCitus(args.citus, args['citus-workers']),
    base: await openSide(baseModules, args['citus-base'], true),
    own: await openSide(ownModules, args.citus, true),
    ms: { base: [] as number[], own: [] as number[] },
  });
for (let b = -20; b < BATCHES; b++) {
  // Base first on even batches, this checkout first on odd ones, each database in turn.
  const order = b % 2 === 0 ? (['base', 'own'] as const) : (['own', 'base'] as const);
  for (const database of databases) {
    for (const name of order) {
      const [batch] = captureBatches(`${name}-${b}`, options.batch, options);
      const started = performance.now();
      await database[name].ingest(batch);
      // The first 20 batches warm up (JIT, plans, caches).
      if (b >= 0) database.ms[name].push(performance.now() - started);
    }
  }
}
const share =
  options.anonymous > 0
    ? `${Math.round(options.anonymous * 100)} % personless $pageviews, the rest`
    : 'batches of 100:';
for (const database of databases) {
  await database.own.close();
  await database.base.close();
  const baseline = median(database.ms.base);
  const own = median(database.ms.own);
  const rate = (ms: number) => formatRate(options.batch / (ms / 1000));
  printTable(
    `Capture A/B on ${database.label}, ${BATCHES} batches each, ${share} half new persons, half $set on ${options.existing} existing`,
    [
      {
        code: `${args.base} (baseline)`,
        'ms per batch (median)': baseline.toFixed(2),
        'events/s': rate(baseline),
        'vs baseline': ratio(baseline, baseline),
      },
      {
        code: 'this checkout',
        'ms per batch (median)': own.toFixed(2),
        'events/s': rate(own),
        'vs baseline': ratio(own, baseline),
      },
    ],
  );
}
