// Copies the prepared image into a fresh DATA_DIR, in the worker thread copyImage (pglite-image.ts)
// starts. Each top entry is copied whole (Node's own recursive copy, with no filter to call back
// per file); PG_VERSION, which makes a directory a database, comes last, so a copy cut short is
// still a fresh DATA_DIR. A filesystem that can clone files (btrfs, XFS) clones instead of copying.
import fs from 'node:fs';
import path from 'node:path';
import { workerData } from 'node:worker_threads';

const { image, dataDir } = workerData as { image: string; dataDir: string };
const MARKER = 'PG_VERSION';
const CLONE = fs.constants.COPYFILE_FICLONE;

for (const entry of fs.readdirSync(image)) {
  if (entry !== MARKER)
    fs.cpSync(path.join(image, entry), path.join(dataDir, entry), { recursive: true, force: true, mode: CLONE });
}
fs.copyFileSync(path.join(image, MARKER), path.join(dataDir, MARKER), CLONE);
