// A fresh embedded database starts from a prepared image: a migrated, cleanly closed PGlite data
// directory kept in node_modules/.cache/herd, copied into an empty DATA_DIR before PGlite opens it.
// Creating a cluster in WebAssembly (initdb, in a second PGlite instance) and migrating it is most
// of a cold start; copying its files (40 MB, mostly catalogs and one WAL segment) is a worker
// thread's work while the main thread loads the server. The image is named by a digest of the
// PGlite version and the migrations' text, so an upgrade or a new migration makes a new one; it
// is built on first need (or by `npm ci`) into a private directory and renamed into place, so two
// processes building at once never see half of one.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { LOCK_NAME } from './data-dir-lock.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MIGRATIONS = path.join(import.meta.dirname, 'migrations');

/** Opens a PGlite on `dataDir`, migrates it and closes it (database.ts passes it: no import cycle). */
export type BuildImage = (dataDir: string) => Promise<void>;

export function imageDirectory(cacheRoot = path.join(ROOT, 'node_modules', '.cache', 'herd')): string {
  const hash = crypto.createHash('sha1');
  const pglite = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string };
  hash.update(pglite.version);
  for (const name of fs.readdirSync(MIGRATIONS).sort())
    hash.update(name).update(fs.readFileSync(path.join(MIGRATIONS, name)));
  return path.join(cacheRoot, `pglite-${hash.digest('hex').slice(0, 12)}`);
}

/** Whether `dataDir` holds no database yet (only, perhaps, herd's lock). */
export function isFreshDataDir(dataDir: string): boolean {
  return !fs.existsSync(path.join(dataDir, 'PG_VERSION'));
}

/** The image, built first when missing; null when it cannot be (a read-only install): initdb then. */
export async function preparedImage(build: BuildImage, directory: string): Promise<string | null> {
  if (fs.existsSync(path.join(directory, 'PG_VERSION'))) return directory;
  const staging = `${directory}.${process.pid}.${crypto.randomBytes(4).toString('hex')}`;
  try {
    fs.mkdirSync(staging, { recursive: true });
    await build(staging);
    fs.rmSync(path.join(staging, LOCK_NAME), { recursive: true, force: true });
    try {
      fs.renameSync(staging, directory);
    } catch (error) {
      // Another process renamed its image first: the same bytes, keep it.
      if (!fs.existsSync(path.join(directory, 'PG_VERSION'))) throw error;
    }
    return directory;
  } catch {
    return null;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Copies the image into a fresh `dataDir` (its lock, taken already, stays as it is) in a worker
 * thread (copy-image.worker.ts). Its cost is creating ~1,100 files: 0.15–0.25 s when the disk is
 * idle, seconds when another process keeps the filesystem busy; either way not on the thread
 * that loads and starts the server.
 */
export function copyImage(image: string, dataDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./copy-image.worker.ts', import.meta.url), { workerData: { image, dataDir } });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`copying the prepared image into ${dataDir} stopped (exit code ${code})`)),
    );
  });
}
