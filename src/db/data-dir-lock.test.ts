import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DataDirLockedError, LOCK_NAME, lockDataDir, nameLockHolder, type LockHolder } from './data-dir-lock.ts';

describe('lockDataDir', () => {
  let dir: string;
  let lockPath: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-lock-unit-'));
    lockPath = path.join(dir, LOCK_NAME);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const holderFiles = () => fs.readdirSync(lockPath);
  const readHolder = (): LockHolder => JSON.parse(fs.readFileSync(path.join(lockPath, holderFiles()[0]), 'utf8'));
  const plant = (holder: Partial<LockHolder> | string, name = '4242-aaaaaaaaaaaa.json') => {
    fs.mkdirSync(lockPath);
    fs.writeFileSync(path.join(lockPath, name), typeof holder === 'string' ? holder : JSON.stringify(holder));
  };
  const refusal = (): DataDirLockedError => {
    try {
      lockDataDir(dir);
    } catch (error) {
      assert.ok(error instanceof DataDirLockedError, String(error));
      return error;
    }
    assert.fail('the lock was taken');
  };

  it('records the holder, refuses a second open in the same process, and is gone once released', () => {
    nameLockHolder('herd unit-test');
    const lock = lockDataDir(dir);
    const holder = readHolder();
    assert.equal(holder.pid, process.pid);
    assert.equal(holder.hostname, os.hostname());
    assert.equal(holder.command, 'herd unit-test');
    assert.ok(Math.abs(Date.parse(holder.started_at) - Date.now()) < 60_000);
    const error = refusal();
    assert.deepEqual(error.holder, holder);
    assert.equal(
      error.message,
      `DATA_DIR ${dir} is in use by herd unit-test (pid ${process.pid} on ${os.hostname()}, since ${holder.started_at})`,
    );
    lock.release();
    assert.equal(fs.existsSync(lockPath), false);
    assert.deepEqual(fs.readdirSync(dir), []);
    lockDataDir(dir).release();
  });

  it('refuses while a live process of this host holds it, and leaves its lock alone', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      plant({ pid: child.pid, hostname: os.hostname(), command: 'herd serve', started_at: '2026-01-01T00:00:00.000Z' });
      assert.equal(refusal().holder?.pid, child.pid);
      assert.deepEqual(holderFiles(), ['4242-aaaaaaaaaaaa.json']);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    // Once that process is gone, its lock is stale.
    lockDataDir(dir).release();
  });

  it('never takes over a lock of another host, whose pid cannot be checked from here', () => {
    plant({ pid: 1, hostname: `not-${os.hostname()}`, command: 'herd serve', started_at: '2026-01-01T00:00:00.000Z' });
    assert.match(refusal().message, /in use by herd serve \(pid 1 on not-/);
    assert.deepEqual(holderFiles(), ['4242-aaaaaaaaaaaa.json']);
  });

  it('refuses an unreadable lock and says how to clear it', () => {
    plant('{"pid":');
    const error = refusal();
    assert.equal(error.holder, null);
    assert.equal(
      error.message,
      `DATA_DIR ${dir} is locked by another process (its lock ${lockPath} cannot be read; remove it if no herd process uses this DATA_DIR)`,
    );
  });

  it('takes over the lock of an earlier process with its own pid (a container restarted)', () => {
    plant({ pid: process.pid, hostname: os.hostname(), command: 'herd serve', started_at: '2026-01-01T00:00:00.000Z' });
    const lock = lockDataDir(dir);
    assert.equal(holderFiles().length, 1);
    assert.notEqual(holderFiles()[0], '4242-aaaaaaaaaaaa.json');
    lock.release();
  });

  it('never removes the lock of a starter that took over the same stale lock first', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    const racer = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      plant({ pid: dead.pid, hostname: os.hostname(), command: 'herd serve', started_at: '2026-01-01T00:00:00.000Z' });
      const racerHolder: LockHolder = {
        pid: racer.pid!,
        hostname: os.hostname(),
        command: 'herd racer',
        started_at: new Date().toISOString(),
      };
      let interleaved = 0;
      const winRace = () => {
        interleaved += 1;
        // What the other starter did meanwhile: removed the dead holder's file, renamed its own lock in.
        fs.unlinkSync(path.join(lockPath, '4242-aaaaaaaaaaaa.json'));
        const staged = fs.mkdtempSync(path.join(dir, 'racer-'));
        fs.writeFileSync(path.join(staged, `${racer.pid}-bbbbbbbbbbbb.json`), JSON.stringify(racerHolder));
        fs.renameSync(staged, lockPath);
      };
      let refused: unknown;
      try {
        lockDataDir(dir, { onStale: winRace }).release();
      } catch (error) {
        refused = error;
      }
      assert.equal(interleaved, 1);
      assert.ok(refused instanceof DataDirLockedError, 'the slower starter is turned away');
      assert.deepEqual(refused.holder, racerHolder);
      assert.deepEqual(holderFiles(), [`${racer.pid}-bbbbbbbbbbbb.json`], "the winner's lock is untouched");
      assert.deepEqual(fs.readdirSync(dir), [LOCK_NAME], 'nothing of the slower starter is left');
    } finally {
      racer.kill('SIGKILL');
      await new Promise((resolve) => racer.once('exit', resolve));
    }
  });

  it('takes an empty lock directory (a takeover that died half-way)', () => {
    fs.mkdirSync(lockPath);
    const lock = lockDataDir(dir);
    assert.equal(readHolder().pid, process.pid);
    lock.release();
  });

  it('takes over the lock of a process that is dead but not yet reaped (a zombie)', async (t) => {
    if (!fs.existsSync('/proc/self/stat')) return t.diagnostic('no /proc: zombies are not told apart here');
    // The inner shell prints its pid and exits; `sleep`, which replaced its parent, never reaps it.
    const parent = spawn('sh', ['-c', "sh -c 'echo $$' & exec sleep 30"], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (chunk) => resolve(String(chunk)))),
      );
      for (let i = 0; i < 100 && !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '); i++)
        await new Promise((r) => setTimeout(r, 20));
      assert.match(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'), /\) Z /);
      plant({ pid, hostname: os.hostname(), command: 'herd serve', started_at: '2026-01-01T00:00:00.000Z' });
      lockDataDir(dir).release();
    } finally {
      parent.kill('SIGKILL');
      await new Promise((resolve) => parent.once('exit', resolve));
    }
  });
});
