// The HTTP bench's data on PostgreSQL: organization A's project with N persons (two distinct ids
// each) and M events, a second project of A that capture writes into, and organization B with a
// small project of its own. Seeded once per size into a template database (bulk SQL), then each
// run works on a fresh copy of it, so capture's writes never pile up and reruns skip the seeding.
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { parse } from 'pg-connection-string';
import { openPostgres, type Db } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { makeProject, makeTenant } from '../test/helpers/factories.ts';
import { withDatabase } from '../test/helpers/db.ts';

// Bump when the seed below changes shape: the cached templates are keyed by it.
const SEED_VERSION = 'v1';
const B_PERSONS = 1000;
/** Persons of A's capture project that capture's `$set` events find already there. */
export const CAPTURE_EXISTING = 5000;
const START = '2024-01-01T00:00:00Z';
const DAYS = 30;

export interface DatasetMeta {
  persons: number;
  events: number;
  a: { projectId: number; key: string; firstPersonId: number; captureProjectId: number; captureToken: string };
  b: { projectId: number; key: string; firstPersonId: number; persons: number };
}

export interface Dataset {
  /** The working copy the servers use. */
  url: string;
  meta: DatasetMeta;
  /** Seconds spent seeding the template in this run; null when it was cached. */
  seededSeconds: number | null;
}

type Admin = Kysely<unknown>;

async function withAdmin<T>(baseUrl: string, work: (admin: Admin) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ ...withDatabase(baseUrl, 'postgres'), max: 1 });
  const admin = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}

/** Keyed by the migrations' text and the seed's version: an edited schema never reuses a stale template. */
function schemaTag(): string {
  const hash = crypto.createHash('sha1').update(SEED_VERSION);
  for (const name of Object.keys(migrations))
    hash.update(name).update(fs.readFileSync(new URL(`../src/db/migrations/${name}.ts`, import.meta.url)));
  return hash.digest('hex').slice(0, 8);
}

const exists = async (admin: Admin, name: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from pg_database where datname = ${name}`.execute(admin)).rows[0]
    .n > 0;

/** Persons `count` of a team, ids contiguous from the returned first id, two distinct ids each. */
async function seedPersons(db: Db, teamId: number, count: number, distinctPrefix: string): Promise<number> {
  await sql`insert into persons (team_id, uuid, properties, is_identified, created_at)
    select ${teamId}::integer, gen_random_uuid(),
      jsonb_build_object('email', 'user' || g || '@example.com', 'name', 'User ' || g,
        'plan', case when g % 5 = 0 then 'pro' else 'free' end, '$browser', case when g % 3 = 0 then 'Firefox' else 'Chrome' end,
        '$os', case when g % 4 = 0 then 'Mac OS X' else 'Windows' end, '$initial_referring_domain', '$direct',
        '$initial_current_url', 'https://example.com/landing/' || (g % 40), 'signup_count', g % 7)
      , true, ${START}::timestamptz + g * interval '1 second'
    from generate_series(1, ${count}::integer) g`.execute(db);
  const range = await sql<{
    first: number;
    last: number;
  }>`select min(id) as first, max(id) as last from persons where team_id = ${teamId}::integer`.execute(db);
  const { first, last } = range.rows[0];
  if (Number(last) - Number(first) + 1 !== count)
    throw new Error(`persons of team ${teamId} are not contiguous: ${first}..${last}`);
  // An anonymous id first (attached first, as an SDK does before identify), then the user's own.
  await sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select ${teamId}::integer, d.distinct_id, p.id from persons p
    cross join lateral (values (1, gen_random_uuid()::text), (2, ${distinctPrefix}::text || p.id)) d(n, distinct_id)
    where p.team_id = ${teamId}::integer order by p.id, d.n`.execute(db);
  return Number(first);
}

async function seedEvents(db: Db, teamId: number, firstPersonId: number, persons: number, count: number) {
  if (count === 0) return;
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
    select ${teamId}::integer, gen_random_uuid(),
      case when r < 0.5 then '$pageview' when r < 0.7 then 'signup' when r < 0.8 then 'purchase' else 'other' end,
      'user-' || pid, pid, pid, jsonb_build_object('$current_url', 'https://example.com/page/' || (g % 20), '$browser', 'Chrome', '$lib', 'web'),
      jsonb_build_object('plan', case when pid % 5 = 0 then 'pro' else 'free' end),
      ${START}::timestamptz + (g::float8 / ${count}::integer) * ${DAYS}::integer * interval '1 day'
    from (select g, random() as r, ${firstPersonId}::bigint + (hashint4(g) & 2147483647) % ${persons}::integer as pid
          from generate_series(1, ${count}::integer) g) s`.execute(db);
}

async function seed(url: string, persons: number, events: number): Promise<DatasetMeta> {
  const handle = await openPostgres(url, 2);
  try {
    const db = handle.db;
    await migrateToLatest(db);
    const a = await makeTenant(db);
    const capture = await makeProject(db, a.organization, 'Capture');
    const b = await makeTenant(db);
    const aFirst = await seedPersons(db, a.project.id, persons, 'user-');
    const bFirst = await seedPersons(db, b.project.id, B_PERSONS, 'b-user-');
    await sql`insert into persons (team_id, uuid, properties, created_at)
      select ${capture.id}::integer, gen_random_uuid(), jsonb_build_object('plan', 'free'), ${START}::timestamptz from generate_series(1, ${CAPTURE_EXISTING}::integer)`.execute(
      db,
    );
    await sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
      select team_id, 'existing-' || (row_number() over (order by id) - 1), id from persons where team_id = ${capture.id}::integer`.execute(
      db,
    );
    await seedEvents(db, a.project.id, aFirst, persons, events);
    // What autovacuum would have done by the time anyone reads: statistics and the visibility map.
    await sql`vacuum analyze`.execute(db);
    const meta: DatasetMeta = {
      persons,
      events,
      a: {
        projectId: a.project.id,
        key: a.key,
        firstPersonId: aFirst,
        captureProjectId: capture.id,
        captureToken: capture.api_token,
      },
      b: { projectId: b.project.id, key: b.key, firstPersonId: bFirst, persons: B_PERSONS },
    };
    await sql`create schema bench_http`.execute(db);
    await sql`create table bench_http.meta (value jsonb not null)`.execute(db);
    await sql`insert into bench_http.meta (value) values (${JSON.stringify(meta)}::jsonb)`.execute(db);
    return meta;
  } finally {
    await handle.close();
  }
}

/**
 * A fresh working copy (the database named in `baseUrl`) of the template for this size, seeding
 * the template first when it is missing. Templates of an older schema are dropped.
 */
export async function prepareDataset(baseUrl: string, persons: number, events: number): Promise<Dataset> {
  const working = parse(baseUrl).database;
  if (!working || working === 'postgres')
    throw new Error(`--url must name a database of the bench's own, got ${baseUrl}`);
  const tag = schemaTag();
  const template = `${working}_tpl_${persons}_${events}_${tag}`;
  let seededSeconds: number | null = null;
  await withAdmin(baseUrl, async (admin) => {
    const stale = await sql<{ datname: string }>`select datname from pg_database
      where datname like ${`${working}\\_tpl\\_%`} and datname not like ${`%\\_${tag}`}`.execute(admin);
    for (const { datname } of stale.rows) await sql`drop database ${sql.id(datname)} with (force)`.execute(admin);
    if (!(await exists(admin, template))) {
      const seeding = `${template}_seeding`;
      await sql`drop database if exists ${sql.id(seeding)} with (force)`.execute(admin);
      await sql`create database ${sql.id(seeding)}`.execute(admin);
      const started = performance.now();
      process.stdout.write(
        `seeding ${persons.toLocaleString('en')} persons and ${events.toLocaleString('en')} events into ${template} (once per size)\n`,
      );
      await seed(withDatabaseUrl(baseUrl, seeding), persons, events);
      seededSeconds = (performance.now() - started) / 1000;
      await sql`alter database ${sql.id(seeding)} rename to ${sql.id(template)}`.execute(admin);
    }
    await sql`drop database if exists ${sql.id(working)} with (force)`.execute(admin);
    await sql`create database ${sql.id(working)} template ${sql.id(template)} strategy file_copy`.execute(admin);
  });
  const handle = await openPostgres(baseUrl, 1);
  try {
    const row = await sql<{ value: DatasetMeta }>`select value from bench_http.meta`.execute(handle.db);
    return { url: baseUrl, meta: row.rows[0].value, seededSeconds };
  } finally {
    await handle.close();
  }
}

/** The same server URL naming another database. */
export function withDatabaseUrl(url: string, name: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^/?]*\/)([^?]*)/, `$1${name}`);
}
