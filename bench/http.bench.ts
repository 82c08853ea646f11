// HTTP load (issue 14): a real listening herd (`herd serve`, a child process, RATE_LIMIT=off so the
// load measures work, not refusals) on PostgreSQL beside a hand-written Fastify + pg server over the
// same data, loaded by autocannon in ABBA rounds; herd ÷ baseline for /_health, retrieve, distinct_id,
// list (at 100k and 20k persons), search and capture; herd's RSS; PGlite cold start; the flood of
// item 6 (1M persons). Each size's data is seeded once into a template database and copied per run.
//   npm run bench -- http                                     (everything: ~15 min, more on the first run)
//   npm run bench -- http --scenario retrieve --duration 5    (one scenario in about a minute)
//   options: --url postgres://root@/herd_bench_http?host=/var/run/postgresql --persons 100000
//     --events 400000 --list-small 20000 --flood-persons 1000000 --duration 10 --warmup 3 --solo 3
//     --sets 1 (ABBA sets) --capture-events 400000 --capture-senders 4 --cold-runs 5 --pool 10 --log-level info
//     --scenario cold_start,health,retrieve,distinct_id,list,search,capture,list_small,flood
//     --cpu-prof (herd under a V8 profiler in the main phase; prints its top self-time functions)
//     --herd-log FILE (herd's log lines, else /dev/null) --out FILE (JSON, default bench/results/)
//     --ab-root DIR (another checkout, e.g. `git archive main | tar -x -C DIR` with node_modules
//     linked: its cold starts alternate with this one's, and the memory scenario runs on both)
//     --flood-unbounded (the flood also against herd with its time limits and heavy-request slots
//     lifted by the environment, first, over the same data: what the bounds buy, in the same run)
//     --workers N (herd serve --workers N: N worker processes on the one port; the baseline stays one
//     process) --limits (RATE_LIMIT=on with the budgets counted in the database, LIMITS_STORE=database,
//     set too high to refuse anything: what counting costs a request) --versus herd (the B side of
//     the read rounds is herd itself, one process counting in its own memory, LIMITS_STORE=process,
//     instead of the hand-written server: herd with --limits or --workers ÷ one plain herd)
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { printProfile, summarizeProfile } from './cpu-profile.ts';
import { runCapture } from './http-capture.ts';
import { prepareDataset, type Dataset } from './http-dataset.ts';
import { runFlood } from './http-flood.ts';
import { measureMemory } from './http-memory.ts';
import type { Target } from './http-load.ts';
import {
  BASELINE_SERVE,
  coldStart,
  HERD_SERVE,
  herdServeOf,
  RssWatch,
  startServer,
  type ColdStartRun,
  type ServerChild,
} from './http-processes.ts';
import { readScenarios, runRead, type ReadResult, type ReadTiming } from './http-reads.ts';
import { printOthers, printReads, printTargets, type HttpReport } from './http-report.ts';

const ALL = [
  'cold_start',
  'memory',
  'health',
  'retrieve',
  'distinct_id',
  'list',
  'search',
  'capture',
  'list_small',
  'flood',
];
const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://root@/herd_bench_http?host=/var/run/postgresql' },
    persons: { type: 'string', default: '100000' },
    events: { type: 'string', default: '400000' },
    'list-small': { type: 'string', default: '20000' },
    'flood-persons': { type: 'string', default: '1000000' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    solo: { type: 'string', default: '3' },
    sets: { type: 'string', default: '1' },
    'capture-events': { type: 'string', default: '400000' },
    'capture-senders': { type: 'string', default: '4' },
    'cold-runs': { type: 'string', default: '5' },
    pool: { type: 'string', default: '10' },
    'log-level': { type: 'string', default: 'info' },
    scenario: { type: 'string', default: ALL.join(',') },
    'cpu-prof': { type: 'boolean', default: false },
    'flood-unbounded': { type: 'boolean', default: false },
    workers: { type: 'string', default: '1' },
    limits: { type: 'boolean', default: false },
    versus: { type: 'string', default: 'baseline' },
    'ab-root': { type: 'string' },
    'herd-log': { type: 'string' },
    out: { type: 'string' },
  },
});
const selected = new Set(args.scenario.split(',').map((name) => name.trim()));
for (const name of selected)
  if (!ALL.includes(name)) throw new Error(`unknown scenario ${name}; one of ${ALL.join(', ')}`);
const number = (name: keyof typeof args) => Number(args[name]);
const timing: ReadTiming = {
  seconds: number('duration'),
  warmupSeconds: number('warmup'),
  soloSeconds: number('solo'),
  sets: number('sets'),
};
const RESULTS = path.join(import.meta.dirname, 'results');
const PROFILES = path.join(RESULTS, 'prof');
const MB = 1024 * 1024;
const log = (line: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${line}\n`);

function progress(read: ReadResult | undefined) {
  if (!read) return;
  const side = (summary: ReadResult['herd']) => `${Math.round(summary.rps)} req/s (p50 ${summary.p50ms.toFixed(2)} ms)`;
  log(
    `  herd ${side(read.herd)}, baseline ${side(read.baseline)}: ${read.ratio.toFixed(2)}×; load average ${read.loadAverage[0].toFixed(1)}`,
  );
}

/** Budgets counted in the database on every request, too high for the load to reach (--limits). */
const COUNTED = {
  RATE_LIMIT: 'on',
  LIMITS_STORE: 'database',
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_HOUR: '100000000',
  ANALYTICS_RATE_LIMIT_PER_MINUTE: '1000000',
  ANALYTICS_RATE_LIMIT_PER_HOUR: '100000000',
};

/** Environment that lifts item 6's bounds: no statement time limit, slots no flood fills. */
const UNBOUNDED = {
  STATEMENT_TIMEOUT_MS: '0',
  ANALYTICS_STATEMENT_TIMEOUT_MS: '0',
  HEAVY_REQUESTS_PER_KEY: '1000',
  HEAVY_REQUESTS_PER_PROJECT: '1000',
  HEAVY_REQUESTS_PER_PROCESS: '1000',
};

function startHerd(
  dataset: Dataset,
  profile = false,
  extraEnv: Record<string, string> = {},
  root: string | null = null,
  workerCount = args.workers,
): Promise<ServerChild> {
  const workers = workerCount === '1' ? [] : ['--workers', workerCount];
  return startServer('herd', {
    args: [...(root ? herdServeOf(root) : HERD_SERVE), ...workers],
    cwd: root ?? undefined,
    env: {
      DATABASE_URL: dataset.url,
      RATE_LIMIT: 'off',
      ...(args.limits ? COUNTED : {}),
      LOG_LEVEL: args['log-level'],
      DATABASE_POOL_SIZE: args.pool,
      DELETION_SCHEDULE: 'off',
      DATA_DIR: undefined,
      ...extraEnv,
    },
    nodeFlags: profile ? ['--cpu-prof', `--cpu-prof-dir=${PROFILES}`] : [],
    logFile: args['herd-log'],
  });
}

/** Plain herd for --versus herd: one process, its budgets (with --limits) counted in its memory. */
const PLAIN_HERD = { LIMITS_STORE: 'process' };
const startPlainHerd = (dataset: Dataset) => startHerd(dataset, false, PLAIN_HERD, null, '1');

const startBaseline = (dataset: Dataset) =>
  args.versus === 'herd'
    ? startPlainHerd(dataset)
    : startServer('baseline', {
        args: BASELINE_SERVE,
        env: { BASELINE_DATABASE_URL: dataset.url, BASELINE_POOL_SIZE: args.pool },
      });

const targetsOf = (dataset: Dataset, herd: ServerChild, baseline: ServerChild): [Target, Target] => {
  const headers = { authorization: `Bearer ${dataset.meta.a.key}` };
  return [
    { name: 'herd', url: herd.url, headers, pid: herd.pid },
    { name: 'baseline', url: baseline.url, headers, pid: baseline.pid },
  ];
};

/** A fresh DATA_DIR in `parent`, which coldStarts removes once all runs are done. */
function herdColdStart(root: string | null, parent: string) {
  const dataDir = fs.mkdtempSync(path.join(parent, 'run-'));
  const env = { DATA_DIR: dataDir, DATABASE_URL: undefined, LOG_LEVEL: args['log-level'], DELETION_SCHEDULE: 'off' };
  return coldStart(root ? { args: herdServeOf(root), env, cwd: root } : { args: HERD_SERVE, env });
}

async function coldStarts(): Promise<HttpReport['coldStart']> {
  // Each run's DATA_DIR (~1,100 files) is kept until the last run: on an ext4 without a journal, as
  // here, a new file skips every inode freed in the last minute, so removing one run's files made
  // the next run's copy of the image scan them all (0.5–1.5 s of kernel time per copy).
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-cold-'));
  try {
    return await coldStartRuns(parent);
  } finally {
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

async function coldStartRuns(parent: string): Promise<HttpReport['coldStart']> {
  const herd: ColdStartRun[] = [];
  const before: ColdStartRun[] = [];
  const bareFastify: ColdStartRun[] = [];
  const other = args['ab-root'] ?? null;
  const line = (name: string, run: ColdStartRun | undefined) =>
    run ? `${name} ${run.ms.toFixed(0)} ms (${run.cpuMs.toFixed(0)} ms CPU)` : '';
  for (let run = 0; run < number('cold-runs'); run++) {
    // Alternating, so the machine's load falls on both alike.
    if (other && run % 2 === 1) before.push(await herdColdStart(other, parent));
    herd.push(await herdColdStart(null, parent));
    if (other && run % 2 === 0) before.push(await herdColdStart(other, parent));
    bareFastify.push(await coldStart({ args: [...BASELINE_SERVE, '--hello'], env: {} }));
    log(
      `cold start ${run + 1}: ${[line('herd', herd.at(-1)), line('before', other ? before.at(-1) : undefined), line('bare Fastify', bareFastify.at(-1))].filter(Boolean).join(', ')}`,
    );
  }
  return { herd, before: other ? before : null, bareFastify };
}

async function mainPhase(report: HttpReport) {
  const reads = ['health', 'retrieve', 'distinct_id', 'list', 'search'].filter((id) => selected.has(id));
  if (reads.length === 0 && !selected.has('capture')) return;
  const dataset = await prepareDataset(args.url, number('persons'), number('events'));
  const herd = await startHerd(dataset, args['cpu-prof']);
  const baseline = await startBaseline(dataset);
  const herdRss = new RssWatch(herd.pid);
  const baselineRss = new RssWatch(baseline.pid);
  const memory: HttpReport['memory'] = {
    afterStartMb: herd.rss() / MB,
    capturePeakMb: null,
    afterCaptureMb: null,
    readPeakMb: null,
    baselineReadPeakMb: null,
  };
  report.memory = memory;
  try {
    if (selected.has('capture')) {
      log(`capture: ${number('capture-events').toLocaleString('en')} events into herd, as many by raw INSERT`);
      const { meta } = dataset;
      report.capture = await runCapture(herd.url, dataset.url, meta.a.captureProjectId, meta.a.captureToken, {
        events: number('capture-events'),
        senders: number('capture-senders'),
        batch: 100,
        sets: timing.sets,
      });
      memory.afterCaptureMb = herd.rss() / MB;
      memory.capturePeakMb = herdRss.takePeak() / MB;
    }
    herdRss.takePeak();
    baselineRss.takePeak();
    const [herdTarget, baselineTarget] = targetsOf(dataset, herd, baseline);
    for (const scenario of readScenarios(dataset.meta).filter((s) => reads.includes(s.id))) {
      log(
        `${scenario.id}: ${scenario.connections} connections, ${timing.sets * 4} rounds of ${timing.seconds} s (ABBA), then solo`,
      );
      report.reads.push(await runRead(scenario, dataset.meta.persons, herdTarget, baselineTarget, timing));
      progress(report.reads.at(-1));
    }
    if (reads.length > 0) {
      memory.readPeakMb = herdRss.takePeak() / MB;
      memory.baselineReadPeakMb = baselineRss.takePeak() / MB;
    }
  } finally {
    herdRss.stop();
    baselineRss.stop();
    await herd.stop();
    await baseline.stop();
  }
}

/** Memory of this checkout and of the --ab-root one, each on a fresh copy of the main data. */
async function memoryPhase(report: HttpReport) {
  const roots: [string, string | null][] = [['this', null]];
  if (args['ab-root']) roots.push(['before', args['ab-root']]);
  for (const [checkout, root] of roots) {
    const dataset = await prepareDataset(args.url, number('persons'), number('events'));
    const herd = await startHerd(dataset, false, {}, root);
    try {
      log(
        `memory, ${checkout}: capture ${number('capture-events').toLocaleString('en')} events, then ${timing.seconds} s of retrieves and of distinct_id lookups`,
      );
      report.memoryRuns.push(
        await measureMemory(checkout, dataset, herd, { events: number('capture-events'), seconds: timing.seconds }),
      );
    } finally {
      await herd.stop();
    }
  }
}

async function smallListPhase(report: HttpReport) {
  const persons = number('list-small');
  const dataset = await prepareDataset(args.url, persons, persons * 4);
  const herd = await startHerd(dataset);
  const baseline = await startBaseline(dataset);
  try {
    const [herdTarget, baselineTarget] = targetsOf(dataset, herd, baseline);
    const list = readScenarios(dataset.meta).find((s) => s.id === 'list');
    if (!list) throw new Error('no list scenario');
    log(`list at ${persons.toLocaleString('en')} persons`);
    report.reads.push(await runRead(list, persons, herdTarget, baselineTarget, timing));
    progress(report.reads.at(-1));
  } finally {
    await herd.stop();
    await baseline.stop();
  }
}

async function floodPhase(report: HttpReport) {
  const dataset = await prepareDataset(args.url, number('flood-persons'), 0);
  const floodTiming = {
    seconds: timing.seconds,
    warmupSeconds: timing.warmupSeconds,
    floodConnections: 16,
    probeConnections: 4,
    settleSeconds: 5,
  };
  const runs: [keyof Pick<HttpReport, 'flood' | 'floodUnbounded'>, Record<string, string>][] = [['flood', {}]];
  if (args['flood-unbounded']) runs.unshift(['floodUnbounded', UNBOUNDED]);
  for (const [slot, env] of runs) {
    const herd = await startHerd(dataset, false, env);
    try {
      const how = slot === 'flood' ? 'bounded (defaults)' : 'bounds lifted';
      log(
        `flood, ${how}: ${number('flood-persons').toLocaleString('en')} persons, A keeps 16 regex lists in flight, B retrieves with 4 connections`,
      );
      report[slot] = await runFlood(herd.url, dataset.url, dataset.meta, floodTiming);
    } finally {
      await herd.stop();
    }
  }
}

function newestProfile(): string | null {
  if (!fs.existsSync(PROFILES)) return null;
  const files = fs
    .readdirSync(PROFILES)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(PROFILES, f));
  return files.sort((x, y) => fs.statSync(y).mtimeMs - fs.statSync(x).mtimeMs)[0] ?? null;
}

async function main() {
  const started = performance.now();
  const report: HttpReport = {
    reads: [],
    capture: null,
    memory: null,
    coldStart: null,
    flood: null,
    floodUnbounded: null,
    memoryRuns: [],
  };
  const context = {
    started: new Date().toISOString(),
    commit: execSync('git rev-parse --short HEAD', { cwd: import.meta.dirname })
      .toString()
      .trim(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverageBefore: os.loadavg(),
    options: args,
  };
  log(
    `commit ${context.commit}, ${context.cpus} cpus, load average ${context.loadAverageBefore.map((n) => n.toFixed(2)).join(' ')}`,
  );
  if (args['cpu-prof'])
    log(
      'herd runs under --cpu-prof in the main phase: its figures are slowed by the profiler, read the profile, not the ratios',
    );
  if (selected.has('cold_start')) report.coldStart = await coldStarts();
  if (selected.has('memory')) await memoryPhase(report);
  await mainPhase(report);
  if (selected.has('list_small')) await smallListPhase(report);
  if (selected.has('flood')) await floodPhase(report);

  if (report.reads.length > 0) printReads(report.reads);
  printOthers(report);
  printTargets(report);
  const minutes = (performance.now() - started) / 60_000;
  log(
    `done in ${minutes.toFixed(1)} min, load average now ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const profileFile = args['cpu-prof'] ? newestProfile() : null;
  if (profileFile) printProfile(profileFile);
  fs.mkdirSync(RESULTS, { recursive: true });
  const out = args.out ?? path.join(RESULTS, `http-${context.started.replace(/[:.]/g, '-')}.json`);
  const profile = profileFile ? { file: profileFile, ...summarizeProfile(profileFile) } : null;
  fs.writeFileSync(
    out,
    `${JSON.stringify({ ...context, minutes, loadAverageAfter: os.loadavg(), ...report, profile }, null, 2)}\n`,
  );
  log(`results: ${path.relative(process.cwd(), out)}`);
}

await main();
