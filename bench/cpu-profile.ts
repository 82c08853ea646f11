// Reads a V8 .cpuprofile (node --cpu-prof) and sums self time by function and by where the code
// lives (a package under node_modules, a file of src/, node's internals), busy time only.
//   node bench/cpu-profile.ts bench/results/prof/CPU.….cpuprofile [--top 30]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable, type Row } from './lib.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = `file://${path.resolve(import.meta.dirname, '..')}/`;
const IDLE = '(idle)';

function placeOf(url: string): string {
  if (!url) return '(native)';
  const local = url.startsWith(ROOT) ? url.slice(ROOT.length) : url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(local);
  if (pkg) return pkg[1];
  return local;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  functions: Row[];
  places: Row[];
  /** herd's own functions (src/) by time with their callees (synchronous stretches only). */
  ownTotals: Row[];
}

const nameOf = (frame: CallFrame) =>
  `${frame.functionName || '(anonymous)'} ${frame.url ? `${placeOf(frame.url)}:${frame.lineNumber + 1}` : ''}`.trim();

export function summarizeProfile(file: string, top = 25): ProfileSummary {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const functions = new Map<string, number>();
  const places = new Map<string, number>();
  const ownTotals = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    const frame = byId.get(id);
    totalMs += ms;
    if (!frame || frame.functionName === IDLE) {
      idleMs += ms;
      return;
    }
    const name = nameOf(frame);
    functions.set(name, (functions.get(name) ?? 0) + ms);
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const caller = byId.get(at);
      if (caller && placeOf(caller.url).startsWith('src/')) onStack.add(nameOf(caller));
    }
    for (const own of onStack) ownTotals.set(own, (ownTotals.get(own) ?? 0) + ms);
    const where = frame.url ? placeOf(frame.url) : frame.functionName || '(native)';
    places.set(where, (places.get(where) ?? 0) + ms);
  });
  const busy = totalMs - idleMs;
  const rows = (totals: Map<string, number>, column: string, msColumn = 'self ms') =>
    [...totals.entries()]
      .sort((x, y) => y[1] - x[1])
      .slice(0, top)
      .map(([name, ms]) => ({
        [column]: name,
        [msColumn]: ms.toFixed(0),
        'of busy': `${((100 * ms) / busy).toFixed(1)} %`,
      }));
  return {
    totalMs,
    idleMs,
    functions: rows(functions, 'function'),
    places: rows(places, 'where'),
    ownTotals: rows(ownTotals, 'herd function (with callees)', 'total ms'),
  };
}

export function printProfile(file: string, top = 25) {
  const summary = summarizeProfile(file, top);
  const busy = summary.totalMs - summary.idleMs;
  process.stdout.write(
    `\nCPU profile ${path.basename(file)}: ${(summary.totalMs / 1000).toFixed(1)} s sampled, busy ${(busy / 1000).toFixed(1)} s (${((100 * busy) / summary.totalMs).toFixed(0)} %)\n\n` +
      `${formatTable(summary.places)}\n\n${formatTable(summary.functions)}\n\n${formatTable(summary.ownTotals)}\n`,
  );
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    options: { top: { type: 'string', default: '30' } },
    allowPositionals: true,
  });
  for (const file of positionals) printProfile(file, Number(values.top));
}
