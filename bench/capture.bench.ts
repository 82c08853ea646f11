// Capture throughput: synthetic batches of 100 events — half create new persons, half $set on
// existing ones — through ingestEvents (and through HTTP with gzip bodies), each beside a baseline
// measured in the same run: the same events written by a plain multi-row INSERT into `events`.
//   node bench/capture.bench.ts                      (PGlite in memory)
//   node bench/capture.bench.ts --pg "postgres://root@/herd_bench?host=/var/run/postgresql"
//   --anonymous 0.5: that share of the events are personless $pageviews ($process_person_profile
//   false, as posthog-js sends before identify) of 5 000 visitors; the rest as above.
import zlib from 'node:zlib';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { defaultConfig } from '../src/config.ts';
import type { Db } from '../src/db/database.ts';
import type { TeamRow } from '../src/db/schema.ts';
import type { Deps } from '../src/deps.ts';
import { systemClock } from '../src/deps.ts';
import { ingestEvents, type CaptureEvent } from '../src/ingestion/ingest.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { captureBatches, seedBatches, VISITORS } from './capture-batches.ts';
import { describeDatabase, formatRate, median, openBenchDatabase, printTable, ratio, timed, type Row } from './lib.ts';

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
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

const makeBatches = (round: string, count: number) => captureBatches(round, count, { batch: BATCH, existing: EXISTING, anonymous: ANONYMOUS });

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

async function main() {
  const pg = args.pg ?? null;
  const handle = await openBenchDatabase(pg, 4);
  const deps: Deps = { db: handle.db, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
  const app = await buildApp(deps);
  const tenant = await makeTenant(handle.db);
  const team = tenant.project;
  await ingestAll(deps, team, seedBatches(EXISTING));
  // Steady state: a production table has statistics (autovacuum); a fresh one would mislead the planner.
  await sql`analyze`.execute(handle.db);

  // Bodies are gzipped before the clock starts: the client's compression is not the server's cost.
  const gzipBodies = (batches: CaptureEvent[][]) =>
    batches.map((batch) => zlib.gzipSync(JSON.stringify({ api_key: team.api_token, batch, sent_at: new Date().toISOString() })));
  const postAll = async (bodies: Buffer[]) => {
    for (const body of bodies) {
      const response = await app.inject({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload: body });
      if (response.statusCode !== 200) throw new Error(`capture answered ${response.statusCode}: ${response.body}`);
    }
  };

  // Warm-up: JIT, plans and caches, not measured.
  await insertRaw(handle.db, team, makeBatches('warm-raw', 1000));
  await ingestAll(deps, team, makeBatches('warm-ingest', 1000));
  await postAll(gzipBodies(makeBatches('warm-http', 1000)));

  // The three paths take turns batch by batch, so the shared machine's load falls on all alike.
  const rates = { raw: [] as number[], ingest: [] as number[], http: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const raw = makeBatches(`raw-${round}`, EVENTS);
    const ingest = makeBatches(`ingest-${round}`, EVENTS);
    const http = gzipBodies(makeBatches(`http-${round}`, EVENTS));
    const ms = { raw: 0, ingest: 0, http: 0 };
    for (let b = 0; b < raw.length; b++) {
      ms.raw += (await timed(() => insertRaw(handle.db, team, [raw[b]]))).ms;
      ms.ingest += (await timed(() => ingestAll(deps, team, [ingest[b]]))).ms;
      ms.http += (await timed(() => postAll([http[b]]))).ms;
    }
    rates.raw.push(EVENTS / (ms.raw / 1000));
    rates.ingest.push(EVENTS / (ms.ingest / 1000));
    rates.http.push(EVENTS / (ms.http / 1000));
  }
  const baseline = median(rates.raw);
  const rows: Row[] = [
    { path: 'plain multi-row INSERT into events (baseline)', 'events/s (median)': formatRate(baseline), 'vs baseline': ratio(baseline, baseline) },
    { path: 'ingestEvents (persons + events, one transaction per batch)', 'events/s (median)': formatRate(median(rates.ingest)), 'vs baseline': ratio(median(rates.ingest), baseline) },
    { path: 'POST /batch/ (gzip JSON, app.inject)', 'events/s (median)': formatRate(median(rates.http)), 'vs baseline': ratio(median(rates.http), baseline) },
  ];
  const mix = ANONYMOUS > 0
    ? `${Math.round(ANONYMOUS * 100)} % personless $pageviews of ${VISITORS} visitors, the rest half new persons, half $set on ${EXISTING} existing`
    : `half new persons, half $set on ${EXISTING} existing`;
  printTable(`Capture on ${describeDatabase(pg)}: ${EVENTS} events × ${ROUNDS} rounds, batches of ${BATCH}, ${mix}`, rows);
  await app.close();
  await handle.close();
}

await main();
