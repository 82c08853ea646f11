import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { defaultConfig } from '../src/config.ts';
import { systemClock, type Deps } from '../src/deps.ts';
import { ingestEvents } from '../src/ingestion/ingest.ts';
import { uuidV7 } from '../src/ingestion/uuid.ts';
import { createLogger } from '../src/log.ts';
import { makeTenant } from '../test/helpers/factories.ts';
import { openBenchDatabase } from './lib.ts';
const url = process.argv[2] ?? null;
const h = await openBenchDatabase(url, 2);
const stats = new Map<string, { n: number; ms: number }>();
let db = h.db;
if (url) {
  const pool = new pg.Pool({ connectionString: url, max: 2, types: { getTypeParser: ((oid: number, f?: any) => (oid === 20 ? Number : pg.types.getTypeParser(oid, f))) as any } });
  db = new Kysely<any>({ dialect: new PostgresDialect({ pool }), log: (e) => { if (e.level === 'query') { const k = e.query.sql.slice(0, 40); const s = stats.get(k) ?? { n: 0, ms: 0 }; s.n++; s.ms += e.queryDurationMillis; stats.set(k, s); } } }) as any;
}
const deps: Deps = { db, dbKind: h.kind, config: defaultConfig(), clock: systemClock, log: createLogger('silent') };
const t = await makeTenant(h.db);
for (let i = 0; i < 5000; i += 500) await ingestEvents(deps, db, t.project, Array.from({ length: 500 }, (_, j) => ({ event: 'seed', distinct_id: `existing-${i + j}`, $set: { plan: 'free' } })));
await (await import('kysely')).sql`analyze`.execute(h.db); stats.clear();
const started = performance.now();
for (let b = 0; b < 50; b++) {
  const batch = Array.from({ length: 100 }, (_, i) => {
    const fresh = i % 2 === 0;
    const d = fresh ? `new-${b}-${i}` : `existing-${Math.floor(Math.random() * 5000)}`;
    return { event: 'e', distinct_id: d, uuid: uuidV7(), timestamp: new Date().toISOString(), properties: { $lib: 'bench', $current_url: 'https://x/' + i }, $set: fresh ? { email: d + '@x', plan: 'free' } : { plan: 'p' + i } };
  });
  await ingestEvents(deps, db, t.project, batch);
}
console.log('total ms', performance.now() - started);
for (const [k, s] of [...stats].sort((a, b) => b[1].ms - a[1].ms)) console.log(s.ms.toFixed(0).padStart(6), String(s.n).padStart(5), k.replace(/\s+/g, ' '));
process.exit(0);
