// `herd serve` as an operator starts it on a new install, and the setup line it prints there.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { freePort } from '../stress/server-process.ts';
import { startHerd } from './herd-process.ts';

const LINE = /^herd: no account yet — open (\S+)\/#\/setup\?token=([A-Za-z0-9_-]+) to create the first one$/;

export interface Serving {
  url: string;
  child: ChildProcess;
  stdout(): string;
  stop(): Promise<number | null>;
}

/** `herd serve` (no --json: the log and the setup line on stdout) on a free port, once it is ready. */
export async function serve(env: Record<string, string>): Promise<Serving> {
  const port = await freePort();
  const child = startHerd(['serve'], { ...env, PORT: String(port), HOST: '127.0.0.1', RATE_LIMIT: 'off' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`herd serve exited with ${child.exitCode}: ${stderr}`);
    const ready = await fetch(`${url}/_ready`).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`herd serve not ready in 60 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    child,
    stdout: () => stdout,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The server's plain setup lines, and its log entries carrying the link. */
export function setupLines(stdout: string) {
  const lines = stdout.split('\n').filter((line) => line !== '');
  const plain = lines.filter((line) => line.startsWith('herd: '));
  const logged = lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; setupUrl?: string })
    .filter((entry) => entry.setupUrl !== undefined);
  return { plain, logged };
}

/** Waits for the one setup line of a server on an empty database: its link and token. */
export async function printedLink(server: Serving): Promise<{ link: string; base: string; token: string }> {
  const deadline = Date.now() + 10_000;
  // The line and the log entry, each written on its own schedule.
  const both = () => {
    const { plain, logged } = setupLines(server.stdout());
    return plain.length > 0 && logged.length > 0;
  };
  while (!both() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const { plain, logged } = setupLines(server.stdout());
  assert.equal(plain.length, 1, server.stdout());
  const match = LINE.exec(plain[0]);
  assert.ok(match, plain[0]);
  assert.deepEqual(
    logged.map((entry) => entry.msg),
    [plain[0]],
    'the log has the same line',
  );
  return { link: `${match[1]}/#/setup?token=${match[2]}`, base: match[1], token: match[2] };
}
