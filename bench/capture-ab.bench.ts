// Capture A/B against the code of another checkout (say main's): both ingestEvents in one process,
// each on a database of its own migrated by its own migrations, taking turns batch by batch in
// alternating order, so the shared machine's load falls on both alike. Prints the median time per
// batch of each side and their ratio.
//   node bench/capture-ab.bench.ts --base /work/main [--anonymous 0.5] [--batches 400]
//   node bench/capture-ab.bench.ts --base /work/main --pg "postgres://…/herd_bench" --pg-base "postgres://…/herd_bench_base"
// The other checkout needs its node_modules. Each PostgreSQL database given is emptied first.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { defaultConfig } from '../src/config.ts';
import * as ownDatabase from '../src/db/database.ts';
import * as ownMigrate from '../src/db/migrate.ts';
import { systemClock, type Deps } from '../src/deps.ts';
import * as ownIngest from '../src/ingestion/ingest.ts';
import { createLogger } from '../src/log.ts';
import * as ownFactories from '../test/helpers/factories.ts';
import { captureBatches, seedBatches } from './capture-batches.ts';
import { describeDatabase, median, printTable, ratio } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    base: { type: 'string' },
    pg: { type: 'string' },
    'pg-base': { type: 'string' },
    anonymous: { type: 'string', default: '0' },
    batches: { type: 'string', default: '400' },
    existing: { type: 'string', default: '5000' },
  },
});
if (!args.base) throw new Error('--base <path of the other checkout> is required');
if (Boolean(args.pg) !== Boolean(args['pg-base'])) throw new Error('give both --pg and --pg-base, or neither (PGlite)');
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
async function openSide(modules: Modules, url: string | null) {
  const handle = url
    ? await modules.database.openPostgres(url, 4)
    : await modules.database.openPGlite({ dataDir: null });
  if (url) {
    await sql`drop schema public cascade`.execute(handle.db);
    await sql`create schema public`.execute(handle.db);
  }
  await modules.migrate.migrateToLatest(handle.db);
  const deps: Deps = { db: handle.db, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
  const team = (await modules.factories.makeTenant(handle.db)).project;
  for (const batch of seedBatches(options.existing)) await modules.ingest.ingestEvents(deps, handle.db, team, batch);
  await sql`analyze`.execute(handle.db);
  return {
    ingest: (batch: ownIngest.CaptureEvent[]) => modules.ingest.ingestEvents(deps, handle.db, team, batch),
    close: () => handle.close(),
  };
}

const own = await openSide(
  { database: ownDatabase, migrate: ownMigrate, ingest: ownIngest, factories: ownFactories },
  args.pg ?? null,
);
const base = await openSide(await modulesOf(args.base), args['pg-base'] ?? null);
const sides = { base, own };
const ms = { base: [] as number[], own: [] as number[] };
for (let b = -20; b < BATCHES; b++) {
  const order = b % 2 === 0 ? (['base', 'own'] as const) : (['own', 'base'] as const);
  for (const name of order) {
    const [batch] = captureBatches(`${name}-${b}`, options.batch, options);
    const started = performance.now();
    await sides[name].ingest(batch);
    // The first 20 batches warm up (JIT, plans, caches).
    if (b >= 0) ms[name].push(performance.now() - started);
  }
}
await own.close();
await base.close();
const baseline = median(ms.base);
const share =
  options.anonymous > 0
    ? `${Math.round(options.anonymous * 100)} % personless $pageviews, the rest`
    : 'batches of 100:';
printTable(
  `Capture A/B on ${describeDatabase(args.pg ?? null)}, ${BATCHES} batches each, ${share} half new persons, half $set on ${options.existing} existing`,
  [
    {
      code: `${args.base} (baseline)`,
      'ms per batch (median)': baseline.toFixed(2),
      'vs baseline': ratio(baseline, baseline),
    },
    {
      code: 'this checkout',
      'ms per batch (median)': median(ms.own).toFixed(2),
      'vs baseline': ratio(median(ms.own), baseline),
    },
  ],
);
