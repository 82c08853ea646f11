// Each test file gets its own freshly migrated database: a new in-memory PGlite, on PostgreSQL
// (TEST_DATABASE_URL) a clone of one migrated template database, on Citus (TEST_CITUS_WORKERS as
// well) a database created on every node (test/helpers/citus.ts).
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { parse } from 'pg-connection-string';
import { openPGlite, openPostgres, type DatabaseHandle } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import {
  allowFanOut,
  citusWorkers,
  createCitusDatabase,
  dropCitusDatabase,
  ROUTED_ONLY,
  type CitusNode,
} from './citus.ts';

const TEMPLATE_LOCK = 7_241_001;
const MIGRATIONS_DIR = new URL('../../src/db/migrations/', import.meta.url);

/** The pool config of the same server with another database. */
export function withDatabase(url: string, name: string): pg.PoolConfig {
  const parsed = parse(url);
  return { ...(parsed as pg.PoolConfig), database: name };
}

async function withAdmin<T>(url: string | pg.PoolConfig, work: (admin: Kysely<unknown>) => Promise<T>): Promise<T> {
  const admin = new Kysely<unknown>({
    dialect: new PostgresDialect({
      pool: new pg.Pool({ ...(typeof url === 'string' ? { connectionString: url } : url), max: 1 }),
    }),
  });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}

async function clonePostgres(baseUrl: string): Promise<{ connection: pg.PoolConfig; drop: () => Promise<void> }> {
  const baseName = parse(baseUrl).database || 'postgres';
  // Keyed by the migration files' text, so an edited migration never runs tests on a stale template.
  const hash = crypto.createHash('sha1');
  for (const name of Object.keys(migrations))
    hash.update(name).update(fs.readFileSync(new URL(`${name}.ts`, MIGRATIONS_DIR)));
  const version = hash.digest('hex').slice(0, 10);
  const template = `${baseName}_tpl_${version}`;
  const name = `${baseName}_t_${crypto.randomBytes(6).toString('hex')}`;
  await withAdmin(baseUrl, async (admin) => {
    await admin.connection().execute(async (conn) => {
      await sql`select pg_advisory_lock(${TEMPLATE_LOCK})`.execute(conn);
      try {
        const exists = await sql<{
          n: number;
        }>`select count(*)::int as n from pg_database where datname = ${template}`.execute(conn);
        if (exists.rows[0].n === 0) {
          await sql`create database ${sql.id(template)}`.execute(conn);
          const handle = await openPostgres(withDatabase(baseUrl, template), 1);
          try {
            await migrateToLatest(handle.db);
          } finally {
            await handle.close();
          }
        }
        await sql`create database ${sql.id(name)} template ${sql.id(template)}`.execute(conn);
      } finally {
        await sql`select pg_advisory_unlock(${TEMPLATE_LOCK})`.execute(conn);
      }
    });
  });
  return {
    connection: withDatabase(baseUrl, name),
    drop: () => withAdmin(baseUrl, (admin) => dropWhenDisconnected(admin, name)),
  };
}

/**
 * pg's Pool.end() resolves before its sockets have closed; a forced drop would then kill backends
 * whose clients still listen and raise an uncaught error in the test. Wait for them to leave first.
 */
async function dropWhenDisconnected(admin: Kysely<unknown>, name: string): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt += 1) {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_stat_activity where datname = ${name}`.execute(admin);
    if (rows[0].n === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin);
}

export interface TestDatabase extends DatabaseHandle {
  /** For tests that open a second connection pool (two servers on one database). */
  readonly connection: pg.PoolConfig | null;
}

async function createCitusTestDatabase(baseUrl: string, workers: CitusNode[]): Promise<TestDatabase> {
  const name = `${parse(baseUrl).database || 'postgres'}_t_${crypto.randomBytes(6).toString('hex')}`;
  const drop = () => dropCitusDatabase(baseUrl, workers, name);
  try {
    const connection = await createCitusDatabase(baseUrl, workers, name);
    const migrator = await openPostgres(connection, 1);
    try {
      await migrateToLatest(migrator.db);
    } finally {
      await migrator.close();
    }
    // The app's queries run with Citus's check that each is routed to one shard (or may fan out).
    const handle = await openPostgres({ ...connection, ...ROUTED_ONLY }, 5, { onConnect: allowFanOut });
    return {
      db: handle.db,
      kind: handle.kind,
      changes: handle.changes,
      connection,
      close: async () => {
        await handle.close();
        await drop();
      },
    };
  } catch (error) {
    await drop();
    throw error;
  }
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) {
    const handle = await openPGlite({ dataDir: null });
    await migrateToLatest(handle.db);
    return { ...handle, connection: null };
  }
  const workers = citusWorkers();
  if (workers) return createCitusTestDatabase(baseUrl, workers);
  const clone = await clonePostgres(baseUrl);
  const handle = await openPostgres(clone.connection, 5);
  return {
    db: handle.db,
    kind: handle.kind,
    changes: handle.changes,
    connection: clone.connection,
    close: async () => {
      await handle.close();
      await clone.drop();
    },
  };
}

/**
 * A database with no migration applied (for tests of a migration over stored data): in-memory
 * PGlite, a new database on PostgreSQL, or one created on every Citus node (workers registered).
 */
export async function createEmptyTestDatabase(): Promise<DatabaseHandle> {
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) return openPGlite({ dataDir: null });
  const name = `${parse(baseUrl).database || 'postgres'}_e_${crypto.randomBytes(6).toString('hex')}`;
  const workers = citusWorkers();
  if (workers) {
    const handle = await openPostgres(await createCitusDatabase(baseUrl, workers, name), 2);
    return { ...handle, close: async () => (await handle.close(), await dropCitusDatabase(baseUrl, workers, name)) };
  }
  await withAdmin(baseUrl, (admin) => sql`create database ${sql.id(name)}`.execute(admin));
  const handle = await openPostgres(withDatabase(baseUrl, name), 2);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await withAdmin(baseUrl, (admin) => dropWhenDisconnected(admin, name));
    },
  };
}
