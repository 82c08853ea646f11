// The read scenarios of the HTTP bench, each loaded on herd and on the hand-written baseline with
// the same URLs and the same key: first a check that both answer the same JSON, a warm-up of
// each, then ABBA rounds at the scenario's connections and ABBA rounds of one connection (solo).
import assert from 'node:assert/strict';
import os from 'node:os';
import type { DatasetMeta } from './http-dataset.ts';
import { abba, runLoad, sequence, summarize, type LoadSpec, type Summary, type Target } from './http-load.ts';
import { cpuSecondsOfTree } from './http-processes.ts';

export interface ReadScenario {
  id: string;
  label: string;
  connections: number;
  /** The least herd ÷ baseline the issue asks for, when it asks. */
  target: number | null;
  /** A path per request, from a generator of person offsets (same seed on both sides). */
  path: (next: () => number) => string;
}

export interface ReadTiming {
  seconds: number;
  warmupSeconds: number;
  soloSeconds: number;
  sets: number;
}

export interface ReadResult {
  id: string;
  label: string;
  persons: number;
  connections: number;
  target: number | null;
  herd: Summary;
  baseline: Summary;
  soloHerd: Summary;
  soloBaseline: Summary;
  ratio: number;
  loadAverage: number[];
  /** CPU milliseconds per response under load (the process and its workers, from /proc), when known. */
  cpuMsPerRequest: { herd: number; baseline: number } | null;
}

/** The scenarios of issue 14 over organization A's project. */
export function readScenarios(meta: DatasetMeta): ReadScenario[] {
  const base = `/api/projects/${meta.a.projectId}/persons`;
  const personId = (next: () => number) => meta.a.firstPersonId + next();
  return [
    {
      id: 'health',
      label: 'GET /_health (baseline: bare Fastify hello world)',
      connections: 32,
      target: 0.6,
      path: () => '/_health',
    },
    {
      id: 'retrieve',
      label: 'retrieve a person by id',
      connections: 32,
      target: 0.7,
      path: (next) => `${base}/${personId(next)}/`,
    },
    {
      id: 'distinct_id',
      label: '`?distinct_id=` lookup',
      connections: 32,
      target: 0.7,
      path: (next) => `${base}/?distinct_id=user-${personId(next)}`,
    },
    {
      id: 'list',
      label: 'list newest 100 + exact count',
      connections: 4,
      target: meta.persons >= 100_000 ? 1.5 : 1.2,
      path: () => `${base}/`,
    },
    {
      id: 'search',
      label: '`search=` exact distinct id',
      connections: 4,
      target: null,
      path: (next) => `${base}/?search=user-${personId(next)}`,
    },
  ];
}

const normalized = (body: string, origin: string) => JSON.parse(body.split(origin).join('ORIGIN')) as unknown;

/** Both servers answer the scenario's first URL with the same status and JSON (links' origin aside). */
async function checkSameAnswer(scenario: ReadScenario, persons: number, herd: Target, baseline: Target) {
  const path = scenario.path(sequence(persons, 7));
  const [ours, theirs] = await Promise.all(
    [herd, baseline].map(async (target) => {
      const response = await fetch(`${target.url}${path}`, { headers: target.headers });
      return { status: response.status, body: normalized(await response.text(), target.url) };
    }),
  );
  try {
    assert.equal(ours.status, 200);
    assert.deepEqual(theirs, ours);
  } catch {
    throw new Error(
      `${scenario.id}: the baseline does not answer ${path} as herd does\nherd:     ${JSON.stringify(ours).slice(0, 600)}\nbaseline: ${JSON.stringify(theirs).slice(0, 600)}`,
    );
  }
}

export async function runRead(
  scenario: ReadScenario,
  persons: number,
  herd: Target,
  baseline: Target,
  timing: ReadTiming,
): Promise<ReadResult> {
  await checkSameAnswer(scenario, persons, herd, baseline);
  const seeds = new Map<Target, number>();
  const spec = (target: Target, connections: number, seconds: number): LoadSpec => {
    const seed = (seeds.get(target) ?? 0) + 1;
    seeds.set(target, seed);
    const next = sequence(persons, seed);
    return { connections, seconds, path: () => scenario.path(next) };
  };
  for (const target of [herd, baseline])
    await runLoad(target, spec(target, scenario.connections, timing.warmupSeconds));
  const cpuOf = (target: Target) => (target.pid === undefined ? NaN : cpuSecondsOfTree(target.pid));
  const cpuBefore = { herd: cpuOf(herd), baseline: cpuOf(baseline) };
  const loaded = await abba(
    timing.sets,
    () => runLoad(herd, spec(herd, scenario.connections, timing.seconds)),
    () => runLoad(baseline, spec(baseline, scenario.connections, timing.seconds)),
  );
  const cpuSpent = { herd: cpuOf(herd) - cpuBefore.herd, baseline: cpuOf(baseline) - cpuBefore.baseline };
  const solo = await abba(
    timing.sets,
    () => runLoad(herd, spec(herd, 1, timing.soloSeconds)),
    () => runLoad(baseline, spec(baseline, 1, timing.soloSeconds)),
  );
  const result = {
    herd: summarize(loaded.a),
    baseline: summarize(loaded.b),
    soloHerd: summarize(solo.a),
    soloBaseline: summarize(solo.b),
  };
  for (const [side, summary] of Object.entries(result)) {
    if (summary.non2xx + summary.errors + summary.timeouts > 0) {
      process.stdout.write(
        `WARNING ${scenario.id} ${side}: ${summary.non2xx} non-2xx, ${summary.errors} errors, ${summary.timeouts} timeouts ${JSON.stringify(summary.statuses)}\n`,
      );
    }
  }
  return {
    id: scenario.id,
    label: scenario.label,
    persons,
    connections: scenario.connections,
    target: scenario.target,
    ...result,
    ratio: result.herd.rps / result.baseline.rps,
    loadAverage: os.loadavg(),
    cpuMsPerRequest: Number.isNaN(cpuSpent.herd + cpuSpent.baseline)
      ? null
      : {
          herd: (cpuSpent.herd * 1000) / result.herd.responses,
          baseline: (cpuSpent.baseline * 1000) / result.baseline.responses,
        },
  };
}
