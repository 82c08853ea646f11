// Prints the import graph of src/ between folders (and the files at its root) as a Mermaid
// flowchart, each arrow labelled with how many imports run along it: `npm run graph`. Tests are
// left out. With `--modules`, each folder of src/modules/ is a node of its own. A cycle between
// nodes is listed after the chart and makes the exit code 1.
import fs from 'node:fs';
import path from 'node:path';

const SRC = path.resolve(import.meta.dirname, '../src');
const splitModules = process.argv.includes('--modules');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** The node a file belongs to: its folder under src/ (a module's own with --modules), or the root file itself. */
function nodeOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts.length === 1) return parts[0];
  if (splitModules && parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}/`;
  return `${parts[0]}/`;
}

// import … from '…', export … from '…', import '…', import('…'): the relative ones.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

const edges = new Map<string, Map<string, number>>();
for (const file of sourceFiles(SRC)) {
  const from = nodeOf(file);
  for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
    const to = nodeOf(path.resolve(path.dirname(file), match[1]));
    if (to === from) continue;
    const targets = edges.get(from) ?? new Map<string, number>();
    targets.set(to, (targets.get(to) ?? 0) + 1);
    edges.set(from, targets);
  }
}

const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((targets) => [...targets.keys()])])].sort();
const id = (node: string) => node.replace(/[^A-Za-z0-9]/g, '_');

const lines = ['flowchart TD'];
for (const node of nodes) lines.push(`  ${id(node)}["${node}"]`);
for (const from of nodes) {
  for (const [to, count] of [...(edges.get(from) ?? new Map<string, number>())].sort(([a], [b]) =>
    a.localeCompare(b),
  )) {
    lines.push(`  ${id(from)} -->|${count}| ${id(to)}`);
  }
}

/** Every node that can reach itself, found by a depth-first walk. */
function cycles(): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of nodes) if (!state.has(node)) visit(node);
  return found;
}

console.log(lines.join('\n'));
const loops = cycles();
for (const loop of loops) console.log(`%% cycle: ${loop.join(' -> ')}`);
process.exitCode = loops.length > 0 ? 1 : 0;
