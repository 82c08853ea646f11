// The Citus test run: TEST_DATABASE_URL names a database on the coordinator, TEST_CITUS_WORKERS its
// workers (`host:port,host:port`, as the coordinator reaches them). A Citus database cannot be a
// template (its maintenance daemon holds it open), so each test file gets a database created on
// every node, with the extension, the workers registered, migrated and distributed.
import type pg from 'pg';
import { Kysely, PostgresDialect, sql } from 'kysely';
import PgModule from 'pg';
import { parse } from 'pg-connection-string';
import { type Placement, PLACEMENTS } from '../../src/db/citus.ts';

export interface CitusNode {
  host: string;
  port: number;
}

export function citusWorkers(): CitusNode[] | null {
  const raw = process.env.TEST_CITUS_WORKERS?.trim();
  return raw ? parseNodes(raw) : null;
}

/** `host:port,host:port` as nodes. */
export function parseNodes(raw: string): CitusNode[] {
  return raw.split(',').map((entry) => {
    const [host, port] = entry.trim().split(':');
    if (!host || !/^\d+$/.test(port ?? '')) throw new Error(`"${entry}" is not host:port`);
    return { host, port: Number(port) };
  });
}

/** The pool config of one node (the coordinator when `node` is null) and database. */
function nodeConfig(baseUrl: string, node: CitusNode | null, database: string): pg.PoolConfig {
  const parsed = parse(baseUrl) as pg.PoolConfig;
  return { ...parsed, ...(node ? { host: node.host, port: node.port } : {}), database };
}

async function onNode<T>(config: pg.PoolConfig, work: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: new PgModule.Pool({ ...config, max: 1 }) }) });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

const REGISTRATION_LOCK = 7241011;

/** Creates `name` on every node with the citus extension and registers the workers; answers the coordinator's config. */
export async function createCitusDatabase(baseUrl: string, workers: CitusNode[], name: string): Promise<pg.PoolConfig> {
  const baseName = parse(baseUrl).database || 'postgres';
  await Promise.all(
    [null, ...workers].map(async (node) => {
      await onNode(nodeConfig(baseUrl, node, baseName), (db) => sql`create database ${sql.id(name)}`.execute(db));
      await onNode(nodeConfig(baseUrl, node, name), (db) => sql`create extension citus`.execute(db));
    }),
  );
  const coordinator = nodeConfig(baseUrl, null, name);
  // One registration at a time across test processes: adding a node writes cluster-wide catalogs
  // on the workers (roles), and two at once fail with "tuple concurrently updated".
  await onNode(nodeConfig(baseUrl, null, baseName), async (admin) => {
    await sql`select pg_advisory_lock(${REGISTRATION_LOCK})`.execute(admin);
    try {
      await onNode(coordinator, async (db) => {
        // The coordinator in the metadata holds a copy of every reference table: the lookups of each
        // request (keys, users, projects, memberships) are read there, not on a worker.
        await sql`select citus_set_coordinator_host(${coordinator.host ?? 'localhost'}, ${coordinator.port ?? 5432})`.execute(
          db,
        );
        for (const worker of workers) await sql`select citus_add_node(${worker.host}, ${worker.port})`.execute(db);
      });
    } finally {
      await sql`select pg_advisory_unlock(${REGISTRATION_LOCK})`.execute(admin);
    }
  });
  return coordinator;
}

/**
 * Drops `name` on every node, the coordinator first (its backends hold connections to the workers),
 * once the test's own connections have left it (a forced drop would kill a backend whose client
 * still listens, an uncaught error in the test).
 */
export async function dropCitusDatabase(baseUrl: string, workers: CitusNode[], name: string): Promise<void> {
  const baseName = parse(baseUrl).database || 'postgres';
  await onNode(nodeConfig(baseUrl, null, baseName), async (db) => {
    for (let attempt = 0; attempt < 40; attempt += 1) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where datname = ${name} and backend_type = 'client backend' and application_name not like 'citus%'`.execute(db);
      if (rows[0].n === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  for (const node of [null, ...workers]) {
    await onNode(nodeConfig(baseUrl, node, baseName), async (db) => {
      // A worker's Citus maintenance daemon (a background worker, which `force` does not end) may
      // hold the database for a moment after the coordinator's connections left: try again.
      for (let attempt = 1; ; attempt += 1) {
        try {
          await sql`drop database if exists ${sql.id(name)} with (force)`.execute(db);
          return;
        } catch (error) {
          if ((error as { code?: string }).code !== '55006' || attempt >= 40) throw error;
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      }
    });
  }
}

// Queries that may run on many shards: those over events of one project (spread over every worker
// by person key; the views of one project fan out by design, never across projects) or over its
// static cohorts' members (beside their events), and the weekly deletion batch's listing of every
// project's pending tasks, and the minutely sweep of expired limit windows and slot leases. Every other query must be routed to one shard (or to one copy of a
// reference table); Citus raises an error for it otherwise.
const MAY_FAN_OUT = [
  /\bevents\b/,
  // A static cohort's members lie beside their events (migration 0019): read by cohort, they fan out too.
  /\bcohort_people\b/,
  /^select .* from "deletion_tasks" inner join "teams"/s,
  /^delete from "(limit_windows|heavy_slot_leases)" where "expires_at" < now\(\)$/,
];

/**
 * Starts a test's own query that reads every shard on purpose (a snapshot of the whole database to
 * show that a request changed nothing); the app's queries never carry it.
 */
export const EVERY_SHARD = '/* test: every shard */';

/** Settings of the checked connections: a query that runs on several shards is an error. */
export const ROUTED_ONLY: pg.PoolConfig = { options: '-c citus.multi_task_query_log_level=error' };

/**
 * For a connection opened with ROUTED_ONLY: the queries that may fan out run with the check off.
 * A failed query inside a transaction cannot turn it back on, but its rollback restores it.
 */
export function allowFanOut(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (text: unknown, values?: unknown) => Promise<pg.QueryResult>;
  const checked = async (text: unknown, values?: unknown) => {
    if (typeof text !== 'string') return query(text, values);
    if (text.startsWith(EVERY_SHARD)) return unchecked(text, values);
    if (!MAY_FAN_OUT.some((pattern) => pattern.test(text))) {
      return query(text, values).catch((error: unknown) => {
        // Name the query that ran on several shards: the failure is then read where it shows.
        if (error instanceof Error && error.message.startsWith('multi-task query'))
          error.message += ` (not routed to one shard: ${text})`;
        throw error;
      });
    }
    // Fan-out over events or members stays within one project: the query names the project's team_id.
    const table = /\b(events|cohort_people)\b/.exec(text)?.[1];
    if (table && !/team_id/.test(text))
      throw new Error(`a query over ${table} that names no project (no team_id): ${text}`);
    return unchecked(text, values);
  };
  const unchecked = async (text: string, values?: unknown) => {
    await query(`set citus.multi_task_query_log_level = 'off'`);
    try {
      return await query(text, values);
    } finally {
      await query(`set citus.multi_task_query_log_level = 'error'`).catch(() => undefined);
    }
  };
  Object.assign(client, { query: checked });
}

/**
 * The placements of a deployment placed before `migration` ran (a test of a migration that moves a
 * table between placements): each migration since undone, the latest first.
 */
export function placementsBefore(migration: '0018_events_person_key' | '0019_cohort_people_by_person'): Placement[] {
  const undone: Record<string, Partial<Placement>> = {
    cohort_people: { column: 'team_id', colocateWith: 'persons' },
    ...(migration === '0018_events_person_key' ? { events: { column: 'distinct_id' } } : {}),
  };
  return PLACEMENTS.map((placement) =>
    placement.kind === 'distributed' && undone[placement.table]
      ? ({ ...placement, ...undone[placement.table] } as Placement)
      : placement,
  );
}
