// Runs the real `herd` command line in a child process, on a temporary DATA_DIR (PGlite) or, when
// TEST_DATABASE_URL is set, on a PostgreSQL database of the same server.
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { parse } from 'pg-connection-string';
import { citusWorkers, createCitusDatabase, dropCitusDatabase } from '../helpers/citus.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const NODE = path.join(root, 'node_modules/.bin/node');
export const MAIN = path.join(root, 'src/cli/main.ts');

export interface HerdResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: nothing of the parent's database settings leaks in. */
export function herdEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { DATABASE_URL: _url, DATA_DIR: _dir, PORT: _port, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'info', DELETION_SCHEDULE: 'off', ...extra };
}

export function runHerd(args: string[], env: Record<string, string>): Promise<HerdResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [MAIN, ...args], { cwd: root, env: herdEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function startHerd(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(NODE, [MAIN, ...args], { cwd: root, env: herdEnv(env) });
}

export interface Served {
  child: ChildProcess;
  url: string;
  pid: number;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** Starts `herd serve --json` on a free port and waits for its one JSON line (the URL and pid). */
export function serveHerd(env: Record<string, string>): Promise<Served> {
  const child = startHerd(['serve', '--json'], { PORT: '0', RATE_LIMIT: 'off', ...env });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n'))
        resolve({ child, ...(JSON.parse(line) as { url: string; pid: number }), stderr: () => stderr, exited });
    });
    void exited.then((code) => reject(new Error(`herd serve exited with ${code} before listening: ${stderr}`)));
  });
}

export async function stopHerd(server: Served, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  server.child.kill(signal);
  return server.exited;
}

/** The DATABASE_URL of another database on the TEST_DATABASE_URL server. */
export function databaseUrl(name: string): string {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error('TEST_DATABASE_URL is not set');
  const [head, query] = base.split('?');
  const prefix = head.slice(0, head.lastIndexOf('/') + 1);
  return `${prefix}${name}${query ? `?${query}` : ''}`;
}

async function withAdmin<T>(work: (admin: Kysely<unknown>) => Promise<T>): Promise<T> {
  const admin = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: process.env.TEST_DATABASE_URL, max: 1 }) }),
  });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}

/** A new, empty database (no migrations) on the test server (on Citus: on every node), and how to drop it. */
export async function createEmptyDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const baseName = parse(process.env.TEST_DATABASE_URL ?? '').database || 'postgres';
  const name = `${baseName}_cli_${crypto.randomBytes(6).toString('hex')}`;
  const workers = citusWorkers();
  if (workers) {
    const base = process.env.TEST_DATABASE_URL ?? '';
    await createCitusDatabase(base, workers, name);
    return { name, url: databaseUrl(name), drop: () => dropCitusDatabase(base, workers, name) };
  }
  await withAdmin((admin) => sql`create database ${sql.id(name)}`.execute(admin));
  return {
    name,
    url: databaseUrl(name),
    drop: () =>
      withAdmin(async (admin) => void (await sql`drop database if exists ${sql.id(name)} with (force)`.execute(admin))),
  };
}
