// The HTTP bench's server processes: herd as `npm start` runs it (its node flags read from package.json)
// and the hand-written baseline, each a child listening on a free port of 127.0.0.1, with its
// resident memory read from /proc; and the cold start of a fresh process to its first /_health.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../test/stress/server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
export const HERD_SERVE = herdServeOf(ROOT);
/**
 * `herd serve` of another checkout (`--ab-root`: the code before a change) as its own `npm start`
 * runs it: with the node flags its package.json's start script passes, if any.
 */
export function herdServeOf(root: string): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts?: { start?: string };
  };
  const flags =
    /\bnode ((?:--\S+ )*)src\/cli\/main\.ts serve/
      .exec(manifest.scripts?.start ?? '')?.[1]
      .split(' ')
      .filter(Boolean) ?? [];
  return [...flags, path.join(root, 'src/cli/main.ts'), 'serve'];
}
export const BASELINE_SERVE = [path.join(ROOT, 'bench/http-baseline.server.ts')];

export interface ChildOptions {
  args: string[];
  /** Added to the bench's environment; an undefined value removes the variable. */
  env: Record<string, string | undefined>;
  nodeFlags?: string[];
  /** The child's working directory (default: this checkout). */
  cwd?: string;
  /** Where the child's stdout (herd's JSON log lines) goes; /dev/null when absent. */
  logFile?: string;
}

export interface ServerChild {
  url: string;
  pid: number;
  /** VmRSS now, in bytes. */
  rss(): number;
  stop(): Promise<void>;
}

function childEnv(port: number, env: ChildOptions['env']): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1' };
  for (const [key, value] of Object.entries(env)) {
    if (value === undefined) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

function spawnChild(
  port: number,
  options: ChildOptions,
): { child: ChildProcess; exited: Promise<void>; stderr: () => string } {
  const stdout = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), ...options.args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(port, options.env),
    stdio: ['ignore', stdout, 'pipe'],
  });
  if (typeof stdout === 'number') fs.closeSync(stdout);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { child, exited, stderr: () => stderr };
}

/** The status of one GET on a fresh connection, or 0 when nothing answered. */
export function statusOf(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent: false }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
    });
    request.on('error', () => resolve(0));
    request.setTimeout(5000, () => request.destroy());
  });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function stopChild(child: ChildProcess, exited: Promise<void>) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** VmRSS in bytes; 0 once the process is gone. */
export function rssOf(pid: number): number {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return 0;
  }
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** Starts a server and waits for its /_health to answer 200. */
export async function startServer(name: string, options: ChildOptions): Promise<ServerChild> {
  const port = await freePort();
  const { child, exited, stderr } = spawnChild(port, options);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while ((await statusOf(`${url}/_health`)) !== 200) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopChild(child, exited);
      throw new Error(`${name} did not start: ${stderr()}`);
    }
    await pause(50);
  }
  return { url, pid: child.pid as number, rss: () => rssOf(child.pid as number), stop: () => stopChild(child, exited) };
}

/** CPU seconds (user + system) a live process has used, from /proc; 0 once it is gone. */
function cpuSecondsOf(pid: number): number {
  try {
    // After the parenthesized command name: state is field 3, utime and stime fields 14 and 15.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of a process and its children (the workers of `herd serve --workers N`). */
export function cpuSecondsOfTree(pid: number): number {
  let children: number[];
  try {
    children = fs
      .readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    children = [];
  }
  return children.reduce((sum, child) => sum + cpuSecondsOf(child), cpuSecondsOf(pid));
}

export interface ColdStartRun {
  /** Milliseconds from spawning a fresh process to its first 200 on /_health (polled every 5 ms). */
  ms: number;
  /** CPU milliseconds the process used meanwhile: what a loaded machine inflates least. */
  cpuMs: number;
}

export async function coldStart(options: ChildOptions): Promise<ColdStartRun> {
  const port = await freePort();
  const started = performance.now();
  const { child, exited, stderr } = spawnChild(port, options);
  try {
    for (;;) {
      if ((await statusOf(`http://127.0.0.1:${port}/_health`)) === 200)
        return { ms: performance.now() - started, cpuMs: cpuSecondsOf(child.pid as number) * 1000 };
      if (child.exitCode !== null) throw new Error(`cold start failed: ${stderr()}`);
      if (performance.now() - started > 600_000) throw new Error('cold start took over 600 s');
      await pause(5);
    }
  } finally {
    await stopChild(child, exited);
  }
}

/** Samples a process's VmRSS every `everyMs` while the bench runs; peaks are read per phase. */
export class RssWatch {
  private peakBytes = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly pid: number;
  constructor(pid: number, everyMs = 200) {
    this.pid = pid;
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }
  sample(): number {
    const bytes = rssOf(this.pid);
    this.peakBytes = Math.max(this.peakBytes, bytes);
    return bytes;
  }
  /** The highest sample since the last call (a phase's peak), then starts over. */
  takePeak(): number {
    const peak = Math.max(this.peakBytes, this.sample());
    this.peakBytes = 0;
    return peak;
  }
  stop() {
    clearInterval(this.timer);
  }
}
