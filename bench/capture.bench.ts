// Capture throughput: synthetic batches of 100 events — half create new persons, half $set on
// existing ones — through ingestEvents (and through HTTP with gzip bodies), each beside a baseline
// measured in the same run: the same events written by a plain multi-row INSERT into `events`.
//   node bench/capture.bench.ts                      (PGlite in memory)
//   node bench/capture.bench.ts --pg "postgres://root@/herd_bench?host=/var/run/postgresql"
//   node bench/capture.bench.ts --pg "postgres://root@/herd_bench?host=/var/run/postgresql" \
//     --citus postgres://root@127.0.0.1:55432/herd_bench [--citus-workers 127.0.0.1:55433,127.0.0.1:55434]
//     (the same batches, turn by turn, on PostgreSQL and on a 3-node Citus cluster: .ci/citus.sh start)
//   --anonymous 0.5: that share of the events are personless $pageviews ($process_person_profile
//   false, as posthog-js sends before identify) of 5 000 visitors; the rest as above.
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import type { DatabaseHandle, Db } from '../src/db/database.ts';
import type { TeamRow } from '../src/db/schema.ts';
import type { Deps } from '../src/deps.ts';
import { systemClock } from '../src/deps.ts';
import { ingestEvents, type CaptureEvent } from '../src/ingestion/ingest.ts';
import type { App } from '../src/http/route-module.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { captureBatches, seedBatches, VISITORS } from './capture-batches.ts';
import {
  DEFAULT_CITUS_WORKERS,
  describeCitus,
  describeDatabase,
  formatRate,
  median,
  openBenchDatabase,
  openCitusBenchDatabase,
  printTable,
  ratio,
  timed,
  type Row,
} from './lib.ts';
import { eventKey } from '../src/db/person-key.ts';

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
    citus: { type: 'string' },
    'citus-workers': { type: 'string', default: DEFAULT_CITUS_WORKERS },
    events: { type: 'string', default: '10000' },
    batch: { type: 'string', default: '100' },
    existing: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    anonymous: { type: 'string', default: '0' },
  },
});
const EVENTS = Number(args.events);
const BATCH = Number(args.batch);
const EXISTING = Number(args.existing);
const ROUNDS = Number(args.rounds);
const ANONYMOUS = Number(args.anonymous);

const makeBatches = (round: string, count: number) =>
  captureBatches(round, count, { batch: BATCH, existing: EXISTING, anonymous: ANONYMOUS });

/** The baseline: the same events as rows, one multi-row INSERT per batch, no person work. */
async function insertRaw(db: Db, team: TeamRow, batches: CaptureEvent[][]) {
  for (const batch of batches) {
    await db
      .insertInto('events')
      .values(
        batch.map((event) => ({
          team_id: team.id,
          uuid: event.uuid as string,
          event: event.event,
          distinct_id: event.distinct_id,
          person_id: null,
          person_key: eventKey(null, event.distinct_id),
          properties: JSON.stringify({ ...event.properties, $set: event.$set }),
          person_properties: '{}',
          timestamp: new Date(event.timestamp as string),
        })),
      )
      .execute();
  }
}

async function ingestAll(deps: Deps, team: TeamRow, batches: CaptureEvent[][]) {
  for (const batch of batches) await ingestEvents(deps, deps.db, team, batch);
}

interface Target {
  label: string;
  handle: DatabaseHandle;
  deps: Deps;
  app: App;
  team: TeamRow;
  rates: { raw: number[]; ingest: number[]; http: number[] };
}

/** Gzipped bodies of the batches: the client's compression is not the server's cost. */
const gzipBodies = (team: TeamRow, batches: CaptureEvent[][]) =>
  batches.map((batch) =>
    zlib.gzipSync(JSON.stringify({ api_key: team.api_token, batch, sent_at: new Date().toISOString() })),
  );

async function postAll(app: App, bodies: Buffer[]) {
  for (const body of bodies) {
    const response = await app.inject({
      method: 'POST',
      url: '/batch/',
      headers: { 'content-type': 'application/json' },
      payload: body,
    });
    if (response.statusCode !== 200) throw new Error(`capture answered ${response.statusCode}: ${response.body}`);
  }
}

async function prepare(label: string, handle: DatabaseHandle): Promise<Target> {
  const deps: Deps = { db: handle.db, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
  const app = await buildApp(deps);
  const tenant = await makeTenant(handle.db);
  const team = tenant.project;
  await ingestAll(deps, team, seedBatches(EXISTING));
  // Steady state: a production table has statistics (autovacuum); a fresh one would mislead the planner.
  await sql`analyze`.execute(handle.db);
  // Warm-up: JIT, plans and caches, not measured.
  await insertRaw(handle.db, team, makeBatches('warm-raw', 1000));
  await ingestAll(deps, team, makeBatches('warm-ingest', 1000));
  await postAll(app, gzipBodies(team, makeBatches('warm-http', 1000)));
  return { label, handle, deps, app, team, rates: { raw: [], ingest: [], http: [] } };
}

async function main() {
  const pg = args.pg ?? null;
  if (args.citus && !pg) throw new Error('--citus is measured beside PostgreSQL: give --pg too');
  const targets = [await prepare(describeDatabase(pg), await openBenchDatabase(pg, 4))];
  if (args.citus)
    targets.push(
      await prepare(
        describeCitus(args.citus, args['citus-workers']),
        await openCitusBenchDatabase(args.citus, args['citus-workers'], 4),
      ),
    );

  // The paths (and databases) take turns batch by batch, so the shared machine's load falls on all alike.
  for (let round = 0; round < ROUNDS; round++) {
    const work = targets.map((target) => ({
      target,
      raw: makeBatches(`raw-${round}`, EVENTS),
      ingest: makeBatches(`ingest-${round}`, EVENTS),
      http: gzipBodies(target.team, makeBatches(`http-${round}`, EVENTS)),
      ms: { raw: 0, ingest: 0, http: 0 },
    }));
    for (let b = 0; b < work[0].raw.length; b++) {
      for (const { target, raw, ingest, http, ms } of work) {
        ms.raw += (await timed(() => insertRaw(target.handle.db, target.team, [raw[b]]))).ms;
        ms.ingest += (await timed(() => ingestAll(target.deps, target.team, [ingest[b]]))).ms;
        ms.http += (await timed(() => postAll(target.app, [http[b]]))).ms;
      }
    }
    for (const { target, ms } of work) {
      target.rates.raw.push(EVENTS / (ms.raw / 1000));
      target.rates.ingest.push(EVENTS / (ms.ingest / 1000));
      target.rates.http.push(EVENTS / (ms.http / 1000));
    }
  }
  const paths = [
    ['raw', 'plain multi-row INSERT into events (baseline)'],
    ['ingest', 'ingestEvents (persons + events, one transaction per batch)'],
    ['http', 'POST /batch/ (gzip JSON, app.inject)'],
  ] as const;
  const mix =
    ANONYMOUS > 0
      ? `${Math.round(ANONYMOUS * 100)} % personless $pageviews of ${VISITORS} visitors, the rest half new persons, half $set on ${EXISTING} existing`
      : `half new persons, half $set on ${EXISTING} existing`;
  for (const target of targets) {
    const baseline = median(target.rates.raw);
    const rows: Row[] = paths.map(([key, path]) => ({
      path,
      'events/s (median)': formatRate(median(target.rates[key])),
      'vs baseline': ratio(median(target.rates[key]), baseline),
    }));
    printTable(`Capture on ${target.label}: ${EVENTS} events × ${ROUNDS} rounds, batches of ${BATCH}, ${mix}`, rows);
  }
  if (targets.length === 2) {
    const [single, cluster] = targets;
    printTable(
      'Citus beside PostgreSQL, same run (events/s of the cluster over those of the single server)',
      paths.map(([key, path]) => ({
        path,
        'PostgreSQL events/s': formatRate(median(single.rates[key])),
        'Citus events/s': formatRate(median(cluster.rates[key])),
        'Citus / PostgreSQL': ratio(median(cluster.rates[key]), median(single.rates[key])),
      })),
    );
  }
  for (const target of targets) {
    await target.app.close();
    await target.handle.close();
  }
}

await main();
