// The deletion batch deleting the events of a time range (an `event_deletions` task): N events of
// one project over 30 days, the middle 15 days deleted — by the batch (bounded chunks, each its own
// transaction, the task verified at the end) and, as the baseline of the same run, by one plain
// `delete … where timestamp >= … and timestamp < …` over the same freshly seeded table. A second
// project's events lie beside them and must all remain.
//   node bench/event-deletions.bench.ts [--url postgres://…/herd_bench] [--events 1000000] [--chunk 10000]
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { defaultConfig } from '../src/config.ts';
import type { Db } from '../src/db/database.ts';
import type { Deps } from '../src/deps.ts';
import { runDeletionBatch } from '../src/jobs/deletion-batch.ts';
import { createLogger } from '../src/log.ts';
import { queueRangeTask } from '../src/modules/deletions/event-deletions.repository.ts';
import { makeProject, makeTenant } from '../test/helpers/factories.ts';
import { describeDatabase, formatRate, openBenchDatabase, printTable, ratio, timed } from './lib.ts';
import { personlessKeySql } from '../src/db/person-key.ts';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    events: { type: 'string', default: '1000000' },
    chunk: { type: 'string', default: '10000' },
  },
});
const EVENTS = Number(args.events);
const CHUNK = Number(args.chunk);
const START = new Date('2024-01-01T00:00:00Z');
const AFTER = new Date('2024-01-08T12:00:00Z');
const BEFORE = new Date('2024-01-23T12:00:00Z');

async function seed(db: Db, teamId: number, count: number): Promise<void> {
  // In arrival order over 30 days, from 10 000 distinct ids, with a small properties object.
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
    select ${teamId}::integer, gen_random_uuid(), case when g % 2 = 0 then '$pageview' else 'signup' end,
      'user-' || (g % 10000), null, ${personlessKeySql(sql`'user-' || (g % 10000)`)}, jsonb_build_object('$current_url', '/page/' || (g % 20)), '{}'::jsonb,
      ${START}::timestamptz + (g::float8 / ${count}::integer) * 30 * interval '1 day'
    from generate_series(1, ${count}::integer) g`.execute(db);
  await sql`analyze events`.execute(db);
}

async function countOf(db: Db, teamId: number): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from events where team_id = ${teamId}::integer`.execute(db);
  return Number(rows[0].n);
}

const handle = await openBenchDatabase(args.url ?? null);
const db = handle.db;
const tenant = await makeTenant(db);
const team = tenant.project.id;
const bystander = await makeProject(db, tenant.organization);
const deps: Deps = {
  db,
  config: defaultConfig(),
  clock: { now: () => new Date() },
  log: createLogger('silent'),
};

process.stderr.write(`seeding ${EVENTS} events on ${describeDatabase(args.url ?? null)}…\n`);
await seed(db, team, EVENTS);
await seed(db, bystander.id, Math.round(EVENTS / 10));
const plain = await timed(async () => {
  const result = await sql`delete from events where team_id = ${team}::integer
    and timestamp >= ${AFTER}::timestamptz and timestamp < ${BEFORE}::timestamptz`.execute(db);
  return Number(result.numAffectedRows ?? 0);
});

await sql`delete from events`.execute(db);
await sql`vacuum events`.execute(db).catch(() => undefined);
process.stderr.write('seeding again for the batch…\n');
await seed(db, team, EVENTS);
await seed(db, bystander.id, Math.round(EVENTS / 10));
await queueRangeTask(
  db,
  {
    teamId: team,
    kind: 'events',
    after: AFTER,
    before: BEFORE,
    event: null,
    properties: null,
    scrubProperties: null,
    createdById: null,
  },
  new Date(),
);
let chunks = 0;
const batch = await timed(async () =>
  runDeletionBatch(deps, {
    chunkSize: CHUNK,
    onChunk: () => {
      chunks += 1;
    },
  }),
);
const left = await countOf(db, team);
const others = await countOf(db, bystander.id);
if (batch.value.events_deleted !== plain.value) {
  throw new Error(`the batch deleted ${batch.value.events_deleted}, the plain delete ${plain.value}`);
}
if (others !== Math.round(EVENTS / 10)) throw new Error(`the other project lost events: ${others} left`);

printTable(`Deleting a time range: ${plain.value} of ${EVENTS} events (${describeDatabase(args.url ?? null)})`, [
  {
    how: 'plain delete … where timestamp between (baseline)',
    ms: Math.round(plain.ms),
    'events/s': formatRate((plain.value / plain.ms) * 1000),
    'vs baseline': '1.00×',
    transactions: 1,
  },
  {
    how: `deletion batch, chunks of ${CHUNK}`,
    ms: Math.round(batch.ms),
    'events/s': formatRate((batch.value.events_deleted / batch.ms) * 1000),
    'vs baseline': ratio(batch.ms, plain.ms),
    transactions: chunks,
  },
]);
process.stdout.write(`\nleft in the project: ${left}; the other project's ${others} events untouched\n`);
await handle.close();
