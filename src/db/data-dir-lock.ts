// One process at a time on an embedded database: PGlite has no locking of its own, and a second
// process on the same DATA_DIR loses writes or writes behind the first one's back.
//
// The lock is the directory DATA_DIR/herd.lock holding one file, named for its holder, with the
// holder's pid, host, command and start. A directory, not a file, because taking over a stale lock
// must never remove a live one: a starter writes its file into a private directory and renames that
// onto herd.lock, which succeeds only while herd.lock is absent or empty; a stale lock is emptied by
// unlinking the dead holder's file by its own name, so a racer that took over first (its file has
// another name) is never touched, and of two renames onto an empty herd.lock only one succeeds.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LOCK_NAME = 'herd.lock';

export interface LockHolder {
  pid: number;
  hostname: string;
  command: string;
  started_at: string;
}

export class DataDirLockedError extends Error {
  readonly dataDir: string;
  readonly lockPath: string;
  /** null: the lock's file could not be read. */
  readonly holder: LockHolder | null;

  constructor(dataDir: string, lockPath: string, holder: LockHolder | null) {
    super(
      holder
        ? `DATA_DIR ${dataDir} is in use by ${holder.command} (pid ${holder.pid} on ${holder.hostname}, since ${holder.started_at})`
        : `DATA_DIR ${dataDir} is locked by another process (its lock ${lockPath} cannot be read; remove it if no herd process uses this DATA_DIR)`,
    );
    this.dataDir = dataDir;
    this.lockPath = lockPath;
    this.holder = holder;
  }
}

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

let holderCommand = `node ${process.argv
  .slice(1)
  .map((arg) => path.basename(arg))
  .join(' ')}`.trim();

/** How this process is named to a process the lock turns away ("herd serve"). */
export function nameLockHolder(command: string) {
  holderCommand = command;
}

/** The locks this process holds, by lock path: released on any exit, process.exit included. */
const held = new Map<string, { file: string; holder: LockHolder }>();
let exitHookInstalled = false;

const errorCode = (error: unknown) => (error as NodeJS.ErrnoException).code;

function parseHolder(text: string): LockHolder | null {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (!Number.isInteger(value.pid) || typeof value.hostname !== 'string') return null;
    return {
      pid: value.pid!,
      hostname: value.hostname,
      command: String(value.command ?? 'an unknown command'),
      started_at: String(value.started_at ?? 'an unknown time'),
    };
  } catch {
    return null;
  }
}

type LockState = { state: 'absent' } | { state: 'empty' } | { state: 'held'; file: string; holder: LockHolder | null };

function readLock(lockPath: string): LockState {
  let entries: string[];
  try {
    entries = fs
      .readdirSync(lockPath)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { state: 'absent' };
    throw error;
  }
  if (entries.length === 0) return { state: 'empty' };
  try {
    return {
      state: 'held',
      file: entries[0],
      holder: parseHolder(fs.readFileSync(path.join(lockPath, entries[0]), 'utf8')),
    };
  } catch (error) {
    // Its holder released it between the listing and the read.
    if (errorCode(error) === 'ENOENT') return { state: 'empty' };
    throw error;
  }
}

/** Whether the holder may still be running. A pid on another host cannot be checked from here. */
function mayBeAlive(holder: LockHolder): boolean {
  if (holder.hostname !== os.hostname()) return true;
  // Not held by this process (that was checked first): an earlier process that had the same pid,
  // as a container's herd has after every restart.
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
  return !isZombie(holder.pid);
}

/** A process killed but not yet reaped by its parent still answers kill(pid, 0); Linux tells. */
function isZombie(pid: number): boolean {
  try {
    // The state follows the command name, which is in parentheses and may itself hold any character.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

function releaseAll() {
  for (const lockPath of [...held.keys()]) release(lockPath);
}

function release(lockPath: string) {
  const mine = held.get(lockPath);
  if (!mine) return;
  held.delete(lockPath);
  try {
    fs.unlinkSync(path.join(lockPath, mine.file));
    // Fails (ENOTEMPTY) when a starter has already renamed its own lock onto the emptied one.
    fs.rmdirSync(lockPath);
  } catch {
    // Nothing else to do on the way out; a leftover empty lock is free to take.
  }
}

/** A private directory in DATA_DIR (the same file system, so the rename is atomic) holding our file. */
function stageLock(dataDir: string, holder: LockHolder): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(dataDir, `${LOCK_NAME}-${process.pid}-`));
  const file = `${holder.pid}-${crypto.randomBytes(6).toString('hex')}.json`;
  fs.writeFileSync(path.join(dir, file), `${JSON.stringify(holder)}\n`);
  return { dir, file };
}

/**
 * Takes DATA_DIR's lock or throws DataDirLockedError naming the holder. Writes nothing while a live
 * process holds it. Call before anything opens the directory; release() when it is closed.
 * onStale runs once a dead holder's lock is judged stale, before it is removed.
 */
export function lockDataDir(dataDir: string, options: { onStale?: (holder: LockHolder) => void } = {}): DataDirLock {
  const lockPath = path.join(dataDir, LOCK_NAME);
  const own = held.get(lockPath);
  if (own) throw new DataDirLockedError(dataDir, lockPath, own.holder);
  fs.mkdirSync(dataDir, { recursive: true });
  const holder: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    command: holderCommand,
    started_at: new Date().toISOString(),
  };
  let staged: { dir: string; file: string } | null = null;
  try {
    // Every pass either takes the lock, refuses, or saw another starter move first; a few suffice.
    for (let attempt = 0; attempt < 20; attempt++) {
      const current = readLock(lockPath);
      if (current.state === 'held') {
        if (!current.holder || mayBeAlive(current.holder))
          throw new DataDirLockedError(dataDir, lockPath, current.holder);
        // Tests make another starter win the takeover here, between the judgement and the unlink.
        options.onStale?.(current.holder);
        try {
          fs.unlinkSync(path.join(lockPath, current.file));
        } catch (error) {
          if (errorCode(error) !== 'ENOENT') throw error;
          continue; // another starter removed it first; look again
        }
      }
      staged ??= stageLock(dataDir, holder);
      try {
        fs.renameSync(staged.dir, lockPath);
      } catch (error) {
        if (errorCode(error) === 'ENOTEMPTY' || errorCode(error) === 'EEXIST') continue; // another starter won
        throw error;
      }
      held.set(lockPath, { file: staged.file, holder });
      staged = null;
      if (!exitHookInstalled) {
        process.on('exit', releaseAll);
        exitHookInstalled = true;
      }
      return { path: lockPath, release: () => release(lockPath) };
    }
    const last = readLock(lockPath);
    throw new DataDirLockedError(dataDir, lockPath, last.state === 'held' ? last.holder : null);
  } finally {
    if (staged) fs.rmSync(staged.dir, { recursive: true, force: true });
  }
}
