import { sql } from 'kysely';
import { defaultConfig } from '../src/config.ts';
import { systemClock, type Deps } from '../src/deps.ts';
import { ingestEvents } from '../src/ingestion/ingest.ts';
import { uuidV7 } from '../src/ingestion/uuid.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { openBenchDatabase } from './lib.ts';
const url = process.argv[2];
const variant = process.argv[3] ?? 'none';
const h = await openBenchDatabase(url, 2);
const db = h.db;
if (variant.includes('trigger')) { await sql`drop trigger persons_count_insert on persons`.execute(db); }
if (variant.includes('trgm')) { await sql`drop index persons_email_trgm`.execute(db); await sql`drop index persons_name_trgm`.execute(db); }
if (variant.includes('email')) { await sql`drop index persons_email`.execute(db); await sql`drop index persons_uuid`.execute(db); }
const deps: Deps = { db, dbKind: h.kind, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
const t = await makeTenant(h.db);
for (let i = 0; i < 5000; i += 500) await ingestEvents(deps, db, t.project, Array.from({ length: 500 }, (_, j) => ({ event: 'seed', distinct_id: `existing-${i + j}`, $set: { plan: 'free' } })));
await sql`analyze`.execute(db);
const mk = (b: number) => Array.from({ length: 100 }, (_, i) => {
    const fresh = i % 2 === 0;
    const d = fresh ? `new-${b}-${i}` : `existing-${Math.floor(Math.random() * 5000)}`;
    return { event: 'e', distinct_id: d, uuid: uuidV7(), timestamp: new Date().toISOString(), properties: { $lib: 'bench', $current_url: 'https://x/' + i }, $set: fresh ? { email: d + '@x', plan: 'free' } : { plan: 'p' + i } };
  });
for (let b = 0; b < 20; b++) await ingestEvents(deps, db, t.project, mk(1000 + b));
let started = performance.now();
for (let b = 0; b < 100; b++) await ingestEvents(deps, db, t.project, mk(b));
const ingest = performance.now() - started;
started = performance.now();
for (let b = 0; b < 100; b++) await db.insertInto('events').values(mk(b).map((e) => ({ team_id: t.project.id, uuid: e.uuid, event: e.event, distinct_id: e.distinct_id, person_id: null, properties: JSON.stringify(e.properties), person_properties: '{}', timestamp: new Date(e.timestamp) }))).execute();
const raw = performance.now() - started;
console.log(variant, 'ingest ms/batch', (ingest / 100).toFixed(1), 'raw ms/batch', (raw / 100).toFixed(1), 'ratio', (raw / ingest).toFixed(2));
await h.close();
