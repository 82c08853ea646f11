// What keeping the definitions costs where it is paid: the buffer's write (src/ingestion/
// definitions.ts), beside the baseline of the same run, ingestEvents of the same batch. A batch
// shaped as posthog-js sends: 100 events of 5 names with 60 properties each (300 event × key pairs).
//   cold: every name and key new (a new project each time): the first batch a process sees;
//   warm: every row there already, the statements find them all (a process just started, or a
//         second server: its memory is empty, the rows are not; then once an hour per process).
// Once its process wrote a batch's names and keys within the hour, a batch writes nothing: the
// capture A/B bench (capture-ab.bench.ts) measures that steady state against the code before.
//   node bench/definitions.bench.ts [--pg "postgres://root@/herd_bench?host=/var/run/postgresql"] [--rounds 30]
import { parseArgs } from 'node:util';
import { defaultConfig } from '../src/config.ts';
import { systemClock, type Deps } from '../src/deps.ts';
import { entriesOf, seenInBatch } from '../src/ingestion/definitions-seen.ts';
import { definitionsBufferOf, writeEntries } from '../src/ingestion/definitions.ts';
import { ingestEvents, prepareEvents, type CaptureEvent } from '../src/ingestion/ingest.ts';
import { createLogger } from '../src/log.ts';
import { makeProject, makeTenant } from '../test/helpers/factories.ts';
import { describeDatabase, median, openBenchDatabase, printTable, ratio } from './lib.ts';

const { values: args } = parseArgs({ options: { pg: { type: 'string' }, rounds: { type: 'string', default: '30' } } });
const ROUNDS = Number(args.rounds);

const NAMES = ['$pageview', '$autocapture', '$pageleave', 'signed_up', 'plan_changed'];
function batchOf(round: number): CaptureEvent[] {
  return Array.from({ length: 100 }, (_, i) => {
    const properties: Record<string, unknown> = {};
    for (let k = 0; k < 60; k++) properties[`$prop_${k}`] = k % 3 === 0 ? k : k % 3 === 1 ? `text ${i}` : true;
    return { event: NAMES[i % NAMES.length], distinct_id: `visitor-${round}-${i % 20}`, properties };
  });
}

const handle = await openBenchDatabase(args.pg ?? null);
const deps: Deps = { db: handle.db, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
const tenant = await makeTenant(handle.db);
const ms = { ingest: [] as number[], cold: [] as number[], warm: [] as number[] };
const time = async (into: number[], work: () => Promise<unknown>) => {
  const started = performance.now();
  await work();
  into.push(performance.now() - started);
};
for (let round = -3; round < ROUNDS; round++) {
  const batch = batchOf(round);
  const project = await makeProject(handle.db, tenant.organization);
  const prepared = prepareEvents(batch, { now: new Date(), sentAt: null, attrPrefix: String });
  const entries = entriesOf(project.id, seenInBatch(prepared));
  const at = Date.now();
  const timings = { ingest: [] as number[], cold: [] as number[], warm: [] as number[] };
  // The baseline: the batch as capture stores it (its definitions then wait in the buffer).
  await time(timings.ingest, () => ingestEvents(deps, handle.db, project, batch));
  await definitionsBufferOf(deps).flush();
  const fresh = await makeProject(handle.db, tenant.organization);
  const freshEntries = new Map(entriesOf(fresh.id, seenInBatch(prepared)).map((entry) => [entry, at]));
  // As the buffer writes a project's entries: one transaction.
  const write = (teamId: number, written: Map<string, number>) =>
    handle.db.transaction().execute((trx) => writeEntries(trx, teamId, written));
  await time(timings.cold, () => write(fresh.id, freshEntries));
  await time(timings.warm, () => write(project.id, new Map(entries.map((entry) => [entry, at]))));
  if (round < 0) continue;
  for (const key of Object.keys(ms) as (keyof typeof ms)[]) ms[key].push(...timings[key]);
}
await handle.close();
const baseline = median(ms.ingest);
const row = (what: string, values: number[]) => ({
  what,
  'ms (median)': median(values).toFixed(2),
  'vs ingestEvents of the batch': ratio(median(values), baseline),
});
printTable(
  `Definitions of a posthog-js-shaped batch (100 events, 5 names, 60 keys) on ${describeDatabase(args.pg ?? null)}, ${ROUNDS} rounds`,
  [
    row('ingestEvents of the batch (baseline)', ms.ingest),
    row('buffer write, cold (5 names, 60 keys, 300 pairs new)', ms.cold),
    row('buffer write, warm (all 365 rows there)', ms.warm),
  ],
);
