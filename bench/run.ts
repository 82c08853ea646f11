// `npm run bench`: lists the benches (each file's opening comment is its documentation);
// `npm run bench -- <name> [options]` runs bench/<name>.bench.ts with those options under the
// same Node, e.g. `npm run bench -- http --scenario retrieve --duration 5`.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const DIR = import.meta.dirname;
const SUFFIX = '.bench.ts';

const benches = fs
  .readdirSync(DIR)
  .filter((file) => file.endsWith(SUFFIX))
  .sort()
  .map((file) => file.slice(0, -SUFFIX.length));

/** The comment lines a bench file opens with, without their `//`. */
function docOf(name: string): string {
  const lines = fs.readFileSync(path.join(DIR, `${name}${SUFFIX}`), 'utf8').split('\n');
  const comment: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('//')) break;
    comment.push(line.replace(/^\/\/ ?/, ''));
  }
  return comment.map((line) => `    ${line}`).join('\n');
}

const [name, ...rest] = process.argv.slice(2);
if (!name || name === '--help' || name === '-h') {
  process.stdout.write(
    `usage: npm run bench -- <name> [options]\n\n${benches.map((bench) => `  ${bench}\n${docOf(bench)}`).join('\n\n')}\n`,
  );
  process.exit(0);
}
if (!benches.includes(name)) {
  process.stderr.write(`unknown bench ${JSON.stringify(name)}; one of: ${benches.join(', ')}\n`);
  process.exit(2);
}
const result = spawnSync(process.execPath, [path.join(DIR, `${name}${SUFFIX}`), ...rest], { stdio: 'inherit' });
process.exit(result.status ?? 1);
