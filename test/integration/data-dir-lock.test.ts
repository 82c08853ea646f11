// One herd process at a time on an embedded database (issue 12): real processes on one DATA_DIR.
// A second process exits 2 naming the holder and writes nothing; the lock goes with its holder, and
// a dead holder's lock is taken over by exactly one of the processes that find it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { LOCK_NAME, type LockHolder } from '../../src/db/data-dir-lock.ts';
import { createEmptyDatabase, NODE, runHerd, serveHerd, startHerd, stopHerd, type HerdResult } from './herd-process.ts';

const CONTENDER = fileURLToPath(new URL('./lock-contender.ts', import.meta.url));

function lockOf(dir: string): LockHolder | null {
  const lockPath = path.join(dir, LOCK_NAME);
  if (!fs.existsSync(lockPath)) return null;
  const files = fs.readdirSync(lockPath);
  assert.equal(files.length, 1, `one holder file in ${lockPath}: ${files.join(', ')}`);
  return JSON.parse(fs.readFileSync(path.join(lockPath, files[0]), 'utf8'));
}

/** A pid no process has any more: a process that ran and was reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(NODE, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function writeStaleLock(dir: string, pid: number) {
  const lockPath = path.join(dir, LOCK_NAME);
  fs.mkdirSync(lockPath);
  const holder: LockHolder = {
    pid,
    hostname: os.hostname(),
    command: 'herd serve',
    started_at: '2026-01-01T00:00:00.000Z',
  };
  fs.writeFileSync(path.join(lockPath, `${pid}-0123456789ab.json`), JSON.stringify(holder));
}

/** Exit 2 with the message on stderr and, with --json, the one object {error, holder} on stdout. */
function assertRefused(result: HerdResult, json: boolean): { error: string; holder: LockHolder } | null {
  assert.equal(result.code, 2, result.stderr);
  if (!json) {
    assert.equal(result.stdout, '');
    return null;
  }
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, result.stdout);
  const object = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(object).sort(), ['error', 'holder']);
  assert.ok(result.stderr.includes(object.error), result.stderr);
  return object;
}

describe('one herd process at a time on a DATA_DIR', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-lock-'));
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  let dir: string;
  let env: Record<string, string>;
  let organizationId: string;
  let key: string;
  let ownerEmail: string;
  before(async () => {
    dir = freshDir();
    env = { DATA_DIR: dir };
    ownerEmail = `owner-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const boot = await runHerd(['bootstrap', '--email', ownerEmail, '--json'], env);
    assert.equal(boot.code, 0, boot.stderr);
    ({ organization_id: organizationId, personal_api_key: key } = JSON.parse(boot.stdout));
  });

  const memberEmails = async (url: string) => {
    const res = await fetch(`${url}/api/organizations/${organizationId}/members/`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { results: { user: { email: string } }[] }).results.map(
      (member) => member.user.email,
    );
  };

  it('a command that ends releases the lock', () => {
    assert.equal(lockOf(dir), null, 'bootstrap has exited and left no lock');
  });

  it('with the server running, `users add --json` exits 2 naming the server and the API to use, and writes nothing', async () => {
    const server = await serveHerd(env);
    try {
      const holder = lockOf(dir);
      assert.deepEqual(
        { pid: holder?.pid, hostname: holder?.hostname, command: holder?.command },
        { pid: server.pid, hostname: os.hostname(), command: 'herd serve' },
      );
      const entries = fs.readdirSync(dir).sort();

      const newEmail = `new-${crypto.randomBytes(3).toString('hex')}@example.com`;
      const refused = assertRefused(
        await runHerd(
          ['users', 'add', '--organization-id', organizationId, '--email', newEmail, '--level', '8', '--json'],
          env,
        ),
        true,
      )!;
      assert.equal(
        refused.error,
        `DATA_DIR ${dir} is in use by herd serve (pid ${server.pid} on ${os.hostname()}, since ${holder!.started_at}). ` +
          "The embedded database takes one process at a time: stop that process first, or use the running server's API with an admin's personal API key: " +
          'POST /api/organizations/<organization_id>/members/ {"email", "level"}.',
      );
      assert.deepEqual(refused.holder, holder);

      assert.deepEqual(fs.readdirSync(dir).sort(), entries, 'nothing created in DATA_DIR');
      assert.deepEqual(lockOf(dir), holder, 'the server still holds its lock');
      assert.ok(!(await memberEmails(server.url)).includes(newEmail));
    } finally {
      assert.equal(await stopHerd(server), 0, server.stderr());
    }
    assert.equal(lockOf(dir), null, 'SIGTERM released the lock');

    // Restarted, the database holds only what the server wrote; SIGINT releases the lock too.
    const again = await serveHerd(env);
    try {
      assert.deepEqual(await memberEmails(again.url), [ownerEmail]);
    } finally {
      assert.equal(await stopHerd(again, 'SIGINT'), 0, again.stderr());
    }
    assert.equal(lockOf(dir), null, 'SIGINT released the lock');
  });

  it('every command that opens the database is turned away while the server runs, each told what to do instead', async () => {
    const server = await serveHerd(env);
    try {
      const cases: [string[], string][] = [
        [['serve'], 'run several servers on one PostgreSQL (DATABASE_URL)'],
        [['migrate'], 'it applied the migrations when it started'],
        [['bootstrap', '--email', 'other@example.com'], 'POST /api/organizations/ {"name"}, POST /api/projects/'],
        [
          ['keys', 'create', '--email', ownerEmail, '--scopes', '*'],
          'POST /api/personal_api_keys/ {"label", "scopes"}',
        ],
        [['deletions', 'run'], 'it runs the queued deletions on DELETION_SCHEDULE'],
      ];
      for (const [args, advice] of cases) {
        for (const json of [false, true]) {
          const result = await runHerd(json ? [...args, '--json'] : args, { ...env, PORT: '0' });
          assertRefused(result, json);
          assert.match(
            result.stderr,
            new RegExp(`^herd: DATA_DIR .* is in use by herd serve \\(pid ${server.pid} on `),
            args.join(' '),
          );
          assert.ok(result.stderr.includes(advice), `${args.join(' ')}: ${result.stderr}`);
        }
      }
      const keys = await fetch(`${server.url}/api/personal_api_keys/`, { headers: { authorization: `Bearer ${key}` } });
      assert.equal(((await keys.json()) as { count: number }).count, 1, 'no key was created');
    } finally {
      assert.equal(await stopHerd(server), 0, server.stderr());
    }
  });

  it('a command stopped by Ctrl-C (SIGINT) or SIGTERM releases the lock on its way out', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const fresh = freshDir();
      // A first migrate on a new DATA_DIR takes seconds (PGlite creates its files): time to interrupt it.
      const child = startHerd(['migrate'], { DATA_DIR: fresh });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      while (lockOf(fresh) === null && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.equal(lockOf(fresh)?.pid, child.pid);
      child.kill(signal);
      assert.equal(await exited, signal === 'SIGINT' ? 130 : 143);
      assert.equal(lockOf(fresh), null, `${signal} released the lock`);
    }
  });

  it('a lock left by a dead process is taken over, by a command and by the server', async () => {
    writeStaleLock(dir, await deadPid());
    const migrated = await runHerd(['migrate', '--json'], env);
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.equal(lockOf(dir), null);

    writeStaleLock(dir, await deadPid());
    const server = await serveHerd(env);
    try {
      assert.equal(lockOf(dir)?.pid, server.pid);
    } finally {
      assert.equal(await stopHerd(server), 0, server.stderr());
    }
  });

  it('a server killed with SIGKILL leaves its lock, and the next process takes it over', async () => {
    const server = await serveHerd(env);
    await stopHerd(server, 'SIGKILL');
    assert.equal(lockOf(dir)?.pid, server.pid, 'nothing released it');
    const memberEmail = `after-crash-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const added = await runHerd(
      ['users', 'add', '--organization-id', organizationId, '--email', memberEmail, '--json'],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    assert.equal(lockOf(dir), null);
    const again = await serveHerd(env);
    try {
      assert.ok((await memberEmails(again.url)).includes(memberEmail));
    } finally {
      assert.equal(await stopHerd(again), 0, again.stderr());
    }
  });

  it('of several processes finding one stale lock at the same instant, exactly one takes it', async () => {
    const raceDir = freshDir();
    for (let round = 0; round < 3; round++) {
      writeStaleLock(raceDir, await deadPid());
      const at = Date.now() + 1500;
      const contenders = Array.from({ length: 6 }, () =>
        spawn(NODE, [CONTENDER, raceDir, String(at)], { stdio: ['pipe', 'pipe', 'inherit'] }),
      );
      const lines = await Promise.all(
        contenders.map(
          (child) =>
            new Promise<string>((resolve, reject) => {
              let out = '';
              child.stdout.on('data', (chunk) => {
                out += chunk;
                if (out.includes('\n')) resolve(out.trim());
              });
              child.once('exit', (code) => reject(new Error(`contender exited ${code} without a word`)));
            }),
        ),
      );
      const winners = contenders.filter((_child, i) => lines[i].startsWith('won '));
      assert.equal(winners.length, 1, lines.join('; '));
      const winnerPid = winners[0].pid;
      assert.deepEqual(
        lines.filter((line) => !line.startsWith('won ')),
        Array(5).fill(`refused ${winnerPid}`),
      );
      assert.equal(lockOf(raceDir)?.pid, winnerPid);
      const exited = contenders.map((child) =>
        child.exitCode !== null ? Promise.resolve() : new Promise((resolve) => child.once('exit', resolve)),
      );
      for (const child of contenders) child.stdin.end();
      await Promise.all(exited);
      assert.equal(lockOf(raceDir), null, 'the winner released it on exit');
      assert.deepEqual(fs.readdirSync(raceDir), [], 'no contender left anything behind');
    }
  });

  if (process.env.TEST_DATABASE_URL) {
    it('with DATABASE_URL no lock is taken and DATA_DIR is never touched', async () => {
      const database = await createEmptyDatabase();
      try {
        const untouched = path.join(os.tmpdir(), `herd-unused-${crypto.randomBytes(4).toString('hex')}`);
        const result = await runHerd(['migrate', '--json'], { DATABASE_URL: database.url, DATA_DIR: untouched });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(fs.existsSync(untouched), false);
      } finally {
        await database.drop();
      }
    });
  }
});
