// Real server processes for the stress harnesses: spawned on a free port over a PGlite data
// directory or a PostgreSQL database, killed with SIGKILL or stopped with SIGTERM, RSS sampled.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { openPGlite } from '../../src/db/database.ts';
import type { Db } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

export const STRESS = process.env.HERD_STRESS === '1';
const ROOT = path.resolve(import.meta.dirname, '../..');
const CLI = path.join(ROOT, 'src/cli/main.ts');

/** What `npm start` runs: `herd serve`. */
export const serverCommand = () => [CLI, 'serve'];

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The database the spawned servers share: a PGlite directory, or a fresh PostgreSQL database. */
export interface StressDatabase {
  kind: 'pglite' | 'postgres';
  env: Record<string, string>;
  /** A handle for seeding and checking. On PGlite only while no server holds the directory. */
  open(): Promise<{ db: Db; close(): Promise<void> }>;
  drop(): Promise<void>;
}

function postgresUrl(base: string, name: string): string {
  return base.replace(/^(postgres(?:ql)?:\/\/[^/?]*\/)([^?]*)/, `$1${name}`);
}

export async function createStressDatabase(): Promise<StressDatabase> {
  const base = process.env.TEST_DATABASE_URL;
  if (base) {
    const database: TestDatabase = await createTestDatabase();
    const name = String(database.connection?.database);
    return {
      kind: 'postgres',
      env: { DATABASE_URL: postgresUrl(base, name) },
      open: async () => ({ db: database.db, close: async () => undefined }),
      drop: () => database.close(),
    };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-stress-'));
  const first = await openPGlite({ dataDir });
  await migrateToLatest(first.db);
  await first.close();
  return {
    kind: 'pglite',
    env: { DATA_DIR: dataDir },
    open: async () => {
      const handle = await openPGlite({ dataDir });
      return { db: handle.db, close: () => handle.close() };
    },
    drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

export interface ServerProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  output(): string;
  /** SIGKILL: no chance to flush or close anything. */
  kill9(): Promise<void>;
  /** SIGTERM and the exit code. */
  stop(): Promise<number | null>;
  /** Resident set size in bytes, from /proc. */
  rss(): number;
}

export async function startServerProcess(
  database: StressDatabase,
  extraEnv: Record<string, string> = {},
  /** Arguments after `herd serve` (`--workers 3`). */
  serveArgs: string[] = [],
): Promise<ServerProcess> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...database.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    RATE_LIMIT: 'off',
    LOG_LEVEL: 'warn',
    DELETION_SCHEDULE: 'off',
    ...extraEnv,
  };
  if (!database.env.DATABASE_URL) delete env.DATABASE_URL;
  const child = spawn(process.execPath, [...serverCommand(), ...serveArgs], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr?.on('data', (chunk) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}: ${output}`);
    const ready = await fetch(`${url}/_ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server not ready in 60 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid ?? 0,
    child,
    output: () => output,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
    rss: () => {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kb * 1024;
    },
  };
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  return { status: res.status, body: await res.text() };
}
