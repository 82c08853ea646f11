// A small harness shared by the benchmarks: open PGlite or a PostgreSQL database (fresh schema,
// migrated), time a function, and print a table with each figure's ratio to a baseline.
import { sql } from 'kysely';
import { openPGlite, openPostgres, type DatabaseHandle } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { createCitusDatabase, dropCitusDatabase, parseNodes } from '../test/helpers/citus.ts';

/** How a bench opens and migrates a database: herd's own code, or another checkout's (an A/B bench). */
export interface DatabaseCode {
  openPostgres: (url: string, poolSize: number) => Promise<DatabaseHandle>;
  migrateToLatest: (db: DatabaseHandle['db']) => Promise<unknown>;
}

const ownCode: DatabaseCode = { openPostgres, migrateToLatest };

/**
 * A database the bench owns, empty and migrated: with `citusWorkers` (`host:port,…`) made anew on
 * the coordinator of `url` and on each worker, with the extension and the workers registered (a
 * distributed schema cannot simply be dropped and recreated in place); else its schema dropped.
 */
export async function freshBenchDatabase(
  url: string,
  citusWorkers: string | null,
  code: DatabaseCode = ownCode,
  poolSize = 4,
): Promise<DatabaseHandle> {
  if (citusWorkers !== null) {
    const maintenance = new URL(url);
    const name = decodeURIComponent(maintenance.pathname.slice(1));
    maintenance.pathname = '/postgres';
    const nodes = parseNodes(citusWorkers);
    await dropCitusDatabase(maintenance.toString(), nodes, name);
    await createCitusDatabase(maintenance.toString(), nodes, name);
  }
  const handle = await code.openPostgres(url, poolSize);
  if (citusWorkers === null) {
    await sql`drop schema public cascade`.execute(handle.db);
    await sql`create schema public`.execute(handle.db);
  }
  await code.migrateToLatest(handle.db);
  return handle;
}

/**
 * PGlite in memory when `pgUrl` is null; else that PostgreSQL database, emptied first — the bench
 * owns it, so point it at a database made for benchmarks (e.g. `createdb herd_bench`).
 */
export async function openBenchDatabase(pgUrl: string | null, poolSize = 4): Promise<DatabaseHandle> {
  if (pgUrl) return freshBenchDatabase(pgUrl, null, ownCode, poolSize);
  const handle = await openPGlite({ dataDir: null });
  await migrateToLatest(handle.db);
  return handle;
}

/** A Citus database made anew on every node of the cluster, migrated and distributed (freshBenchDatabase). */
export function openCitusBenchDatabase(url: string, workers: string, poolSize = 4): Promise<DatabaseHandle> {
  return freshBenchDatabase(url, workers, ownCode, poolSize);
}

/** Default workers of a cluster from `.ci/citus.sh start`. */
export const DEFAULT_CITUS_WORKERS = '127.0.0.1:55433,127.0.0.1:55434';

export const describeDatabase = (pgUrl: string | null) =>
  pgUrl ? `PostgreSQL (${pgUrl.replace(/\/\/[^@/]*@/, '//')})` : 'PGlite (in memory)';
export const describeCitus = (url: string, workers: string) =>
  `Citus 3 nodes (coordinator ${url.replace(/\/\/[^@/]*@/, '//')}, workers ${workers})`;

/** Milliseconds `work` took, with its value. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/**
 * A measured function and its baseline run by turns (baseline, view, baseline, view, …) after one
 * warm-up each, so a load that changes during the run weighs on both alike: each one's samples in ms, sorted.
 */
export async function timeByTurns(
  view: () => Promise<unknown>,
  baseline: () => Promise<unknown>,
  runs: number,
): Promise<{ view: number[]; baseline: number[] }> {
  await baseline();
  await view();
  const views: number[] = [];
  const baselines: number[] = [];
  for (let i = 0; i < runs; i++) {
    baselines.push((await timed(baseline)).ms);
    views.push((await timed(view)).ms);
  }
  const ascending = (a: number, b: number) => a - b;
  return { view: views.sort(ascending), baseline: baselines.sort(ascending) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `value / baseline` as "0.42×". */
export const ratio = (value: number, baseline: number): string => `${(value / baseline).toFixed(2)}×`;

export type Row = Record<string, string | number>;

/** A Markdown table, ready to paste into BENCHMARKS.md. */
export function formatTable(rows: Row[]): string {
  if (rows.length === 0) return '';
  const columns = Object.keys(rows[0]);
  const cells = rows.map((row) => columns.map((column) => String(row[column] ?? '')));
  const widths = columns.map((column, i) => Math.max(column.length, ...cells.map((cell) => cell[i].length)));
  const line = (values: string[]) => `| ${values.map((value, i) => value.padEnd(widths[i])).join(' | ')} |`;
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...cells.map(line)].join('\n');
}

export function printTable(title: string, rows: Row[]): void {
  process.stdout.write(`\n${title}\n\n${formatTable(rows)}\n`);
}

export const formatRate = (perSecond: number): string => Math.round(perSecond).toLocaleString('en-US');
