// The HTTP bench's tables: each scenario beside its baseline of the same run, then every figure
// against the target issue 14 sets for it.
import type { CaptureResult } from './http-capture.ts';
import type { FloodResult } from './http-flood.ts';
import type { MemoryFigures, MemoryRun } from './http-memory-figures.ts';
import type { ColdStartRun } from './http-processes.ts';
import type { Summary } from './http-load.ts';
import type { ReadResult } from './http-reads.ts';
import { formatRate, printTable, type Row } from './lib.ts';

export interface ColdStart {
  herd: ColdStartRun[];
  /** The other checkout's (`--ab-root`), alternating with this one's. */
  before: ColdStartRun[] | null;
  bareFastify: ColdStartRun[];
}

export interface HttpReport {
  reads: ReadResult[];
  capture: CaptureResult | null;
  memory: MemoryFigures | null;
  coldStart: ColdStart | null;
  flood: FloodResult | null;
  /** The memory scenario: this checkout and the --ab-root one, each on its own copy of the data. */
  memoryRuns: MemoryRun[];
  /** The same flood against herd with its time limits and heavy-request slots lifted. */
  floodUnbounded: FloodResult | null;
}

const ms = (value: number) => (Number.isNaN(value) ? '—' : value < 10 ? value.toFixed(2) : value.toFixed(1));
const pair = (summary: Summary) => `${ms(summary.p50ms)} / ${ms(summary.p99ms)}`;
const times = (value: number) => `${value.toFixed(2)}×`;
const mb = (value: number | null) => (value === null ? '—' : value.toFixed(0));
const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
export const medianOf = (values: number[]) => sorted(values)[Math.floor((values.length - 1) / 2)];

export function printReads(reads: ReadResult[]) {
  printTable(
    'Reads on PostgreSQL, herd and the hand-written baseline in ABBA rounds (req/s over all rounds; p50 / p99 of every response)',
    reads.map((read): Row => ({
      scenario: read.label,
      persons: read.persons.toLocaleString('en'),
      conns: read.connections,
      'herd req/s': formatRate(read.herd.rps),
      'baseline req/s': formatRate(read.baseline.rps),
      'herd ÷ baseline': times(read.ratio),
      'herd p50 / p99 ms': pair(read.herd),
      'baseline p50 / p99 ms': pair(read.baseline),
      'solo p50 herd / baseline ms': `${ms(read.soloHerd.p50ms)} / ${ms(read.soloBaseline.p50ms)}`,
      'CPU ms/req herd / baseline': read.cpuMsPerRequest
        ? `${read.cpuMsPerRequest.herd.toFixed(3)} / ${read.cpuMsPerRequest.baseline.toFixed(3)}`
        : '—',
      'load avg': read.loadAverage[0].toFixed(1),
    })),
  );
}

export function printOthers(report: HttpReport) {
  const { capture, memory, coldStart, flood } = report;
  if (capture) {
    printTable(`Capture, ${capture.senders} senders, batches of 100 (ABBA rounds)`, [
      {
        path: 'raw multi-row INSERT via pg (baseline)',
        events: capture.rawEvents.toLocaleString('en'),
        'events/s': formatRate(capture.rawEventsPerSecond),
        ratio: times(1),
      },
      {
        path: 'herd POST /batch/',
        events: capture.herdEvents.toLocaleString('en'),
        'events/s': formatRate(capture.herdEventsPerSecond),
        ratio: times(capture.ratio),
      },
    ]);
  }
  if (memory) {
    printTable('herd resident memory (VmRSS, MB)', [
      { when: 'after start (idle)', herd: mb(memory.afterStartMb) },
      { when: 'peak while capturing', herd: mb(memory.capturePeakMb) },
      { when: 'right after capture', herd: mb(memory.afterCaptureMb) },
      { when: 'peak under the read load', herd: mb(memory.readPeakMb) },
      { when: 'baseline server, peak under the read load', herd: mb(memory.baselineReadPeakMb) },
    ]);
  }
  if (report.memoryRuns.length > 0) {
    printTable(
      'herd resident memory (VmRSS, MB), each checkout on its own copy of the data',
      report.memoryRuns.map((run) => ({
        checkout: run.checkout,
        'after start': mb(run.figures.afterStartMb),
        'capture peak': mb(run.figures.capturePeakMb),
        'after capture': mb(run.figures.afterCaptureMb),
        'read peak': mb(run.figures.readPeakMb),
        'capture events/s': formatRate(run.eventsPerSecond),
        'retrieve req/s': formatRate(run.reads.retrieve),
        'distinct_id req/s': formatRate(run.reads.distinctId),
      })),
    );
  }
  if (coldStart) {
    const row = (name: string, runs: ColdStartRun[]) => {
      const values = runs.map((run) => run.ms);
      return {
        process: name,
        runs: values.length,
        'median ms': medianOf(values).toFixed(0),
        'min ms': sorted(values)[0].toFixed(0),
        'max ms': sorted(values).at(-1)?.toFixed(0) ?? '',
        'median CPU ms': medianOf(runs.map((run) => run.cpuMs)).toFixed(0),
      };
    };
    printTable('Cold start to the first 200 on /_health', [
      row('herd serve, fresh PGlite DATA_DIR', coldStart.herd),
      ...(coldStart.before ? [row('the same, --ab-root checkout (before)', coldStart.before)] : []),
      row('bare Fastify hello world (reference)', coldStart.bareFastify),
    ]);
  }
  for (const [title, result] of [
    ['bounds lifted', report.floodUnbounded],
    ['bounded (defaults)', flood],
  ] as const) {
    if (result) printFlood(title, result);
  }
}

function printFlood(title: string, flood: FloodResult) {
  const line = (name: string, summary: Summary) => ({
    'B retrieves its own person': name,
    'req/s': formatRate(summary.rps),
    'p50 ms': ms(summary.p50ms),
    'p99 ms': ms(summary.p99ms),
    responses: summary.responses,
    'non-2xx': summary.non2xx + summary.errors + summary.timeouts,
  });
  printTable(
    `Flood, ${title}: ${flood.persons.toLocaleString('en')} persons in A's project; one regex list alone ${flood.regexAloneSeconds.toFixed(2)} s (${flood.regexAloneStatuses.join(', ')})`,
    [line('without the flood', flood.without), line('while A floods', flood.with)],
  );
  const outcomes =
    Object.entries(flood.flood.statuses)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ') || 'none';
  process.stdout.write(
    `\nA's flood: ${flood.flood.responses} answers in ${flood.flood.seconds.toFixed(1)} s (${outcomes}; ${flood.flood.timeouts} timeouts, ${flood.flood.errors} errors); ` +
      `p50 ${ms(flood.flood.p50ms)} ms, p99 ${ms(flood.flood.p99ms)} ms; the database ran A's statements ${flood.drainSeconds.toFixed(1)} s after its clients left\n`,
  );
}

/** Every measured figure beside its target in issue 14. */
export function printTargets(report: HttpReport) {
  const rows: Row[] = [];
  const add = (figure: string, measured: string, target: string, met: boolean) =>
    rows.push({ figure, measured, target, met: met ? 'yes' : 'NO' });
  for (const read of report.reads) {
    if (read.target !== null)
      add(
        `${read.label} (${read.persons.toLocaleString('en')} persons)`,
        times(read.ratio),
        `≥ ${read.target}×`,
        read.ratio >= read.target,
      );
  }
  if (report.capture)
    add('capture POST /batch/ vs raw INSERT', times(report.capture.ratio), '≥ 0.4×', report.capture.ratio >= 0.4);
  const memory = report.memory;
  if (memory?.afterCaptureMb != null)
    add('RSS right after capture', `${mb(memory.afterCaptureMb)} MB`, '≤ 250 MB', memory.afterCaptureMb <= 250);
  if (memory?.readPeakMb != null)
    add('RSS under the read load (peak)', `${mb(memory.readPeakMb)} MB`, '≤ 250 MB', memory.readPeakMb <= 250);
  for (const run of report.memoryRuns.filter((run) => run.checkout === 'this')) {
    add(
      'RSS right after capture (memory scenario)',
      `${mb(run.figures.afterCaptureMb)} MB`,
      '≤ 250 MB',
      (run.figures.afterCaptureMb ?? Infinity) <= 250,
    );
    add(
      'RSS under the read load (memory scenario, peak)',
      `${mb(run.figures.readPeakMb)} MB`,
      '≤ 250 MB',
      (run.figures.readPeakMb ?? Infinity) <= 250,
    );
  }
  if (report.coldStart) {
    const median = medianOf(report.coldStart.herd.map((run) => run.ms));
    add('cold start, fresh PGlite DATA_DIR', `${(median / 1000).toFixed(2)} s`, '≤ 1.5 s', median <= 1500);
  }
  if (report.flood) {
    add('flood: B keeps of its throughput', times(report.flood.keeps), '≥ 0.33×', report.flood.keeps >= 1 / 3);
    add('flood: B p99', `${ms(report.flood.with.p99ms)} ms`, '< 100 ms', report.flood.with.p99ms < 100);
  }
  printTable('Against the targets of issue 14', rows);
}
