#!/usr/bin/env -S node --max-semi-space-size=16 --max-old-space-size=512
// The `herd` command. herd's TypeScript runs by Node's type stripping (Node >= 22.18); on an older
// Node this re-runs itself with the Node 24 the project pins as a devDependency. A 512 MB old
// generation (under 1 GB, V8 lets the heap outgrow its live data by about 1.6× instead of 4×) and
// young-generation semi-spaces of at most 16 MB keep a busy server's memory ~100 MB lower
// (docs/operations.md).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
if (major > 22 || (major === 22 && minor >= 18)) {
  await import(main);
} else {
  const pinned = fileURLToPath(new URL('../node_modules/node/bin/node', import.meta.url));
  if (!existsSync(pinned)) {
    console.error('herd needs Node.js >= 22.18 (run `npm ci` to install the pinned Node 24)');
    process.exit(1);
  }
  const result = spawnSync(
    pinned,
    ['--max-semi-space-size=16', '--max-old-space-size=512', main, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
