// One of several processes that try to take a DATA_DIR's lock at the same instant (argv: dir,
// epoch ms). Prints `won <pid>` and holds the lock until stdin closes, or `refused <holder pid>`.
import { DataDirLockedError, lockDataDir } from '../../src/db/data-dir-lock.ts';

const [dir, at] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(at) - Date.now() - 5)));
while (Date.now() < Number(at)) {
  // the last milliseconds spun, so that the contenders start together
}
try {
  lockDataDir(dir);
  process.stdout.write(`won ${process.pid}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
} catch (error) {
  if (!(error instanceof DataDirLockedError)) throw error;
  process.stdout.write(`refused ${error.holder?.pid}\n`);
}
