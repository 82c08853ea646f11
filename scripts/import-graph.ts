// Prints the import graph of src/ between folders (and the files at its root) as a Mermaid
// flowchart, each arrow labelled with how many imports run along it: `npm run graph`. Tests are
// left out. With `--modules`, each folder of src/modules/ is a node of its own. A cycle between
// nodes, or between single files of src/, console/src/ or bench/ (type-only imports included), is
// listed after the chart and makes the exit code 1. With `--check`, nothing is printed but the
// difference between the chart and the one in docs/architecture.md, which fails the run too.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DOC = path.join(ROOT, 'docs/architecture.md');
const splitModules = process.argv.includes('--modules');
const check = process.argv.includes('--check');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
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

/** Every node of `edges` that can reach itself, found by a depth-first walk. */
function cycles(edges: Map<string, Map<string, number>>, nodes: string[]): string[][] {
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

/** File to file, over src/, console/src/ and bench/: a cycle there blurs which file is below which. */
function fileEdges(): Map<string, Map<string, number>> {
  const files = ['src', 'console/src', 'bench'].flatMap((dir) => sourceFiles(path.join(ROOT, dir)));
  const known = new Set(files);
  const graph = new Map<string, Map<string, number>>();
  for (const file of files) {
    const targets = new Map<string, number>();
    for (const match of fs.readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const to = path.resolve(path.dirname(file), match[1]);
      if (known.has(to)) targets.set(path.relative(ROOT, to), 1);
    }
    graph.set(path.relative(ROOT, file), targets);
  }
  return graph;
}

const files = fileEdges();
const loops = [...cycles(edges, nodes), ...cycles(files, [...files.keys()].sort())];
const chart = lines.join('\n');
if (check) {
  // The doc's chart is the one of folders (without --modules).
  const documented = /```mermaid\n(flowchart TD\n[\s\S]*?)\n```/.exec(fs.readFileSync(DOC, 'utf8'))?.[1] ?? '';
  if (documented !== chart) {
    const shown = new Set(documented.split('\n'));
    const actual = new Set(lines);
    for (const line of lines) if (!shown.has(line)) console.log(`+ ${line}`);
    for (const line of shown) if (!actual.has(line)) console.log(`- ${line}`);
    console.log(
      'docs/architecture.md: the import graph differs from the code (+ code, - doc): npm run graph prints it',
    );
    process.exitCode = 1;
  }
} else {
  console.log(chart);
}
for (const loop of loops) console.log(`%% cycle: ${loop.join(' -> ')}`);
if (loops.length > 0) process.exitCode = 1;
