// Load for the HTTP bench: autocannon in this process, every response's time kept in a microsecond
// histogram (autocannon's own keeps whole milliseconds, too coarse for sub-millisecond answers),
// statuses counted, and the ABBA order of rounds (A, B, B, A: drift of a shared machine falls on
// both sides alike).
import http from 'node:http';
import { createRequire } from 'node:module';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

interface AutocannonRequest {
  method: string;
  path?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
interface AutocannonResult {
  errors: number;
  timeouts: number;
}
interface AutocannonInstance {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, milliseconds: number) => void): void;
  stop(): void;
}
type Autocannon = (
  options: Record<string, unknown>,
  done: (error: Error | null, result: AutocannonResult) => void,
) => AutocannonInstance;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The server's process (with its workers), for the CPU it spends per request. */
  pid?: number;
}

export interface LoadSpec {
  connections: number;
  seconds: number;
  /** One path for every request, or a new one per request. */
  path: string | (() => string);
  timeoutSeconds?: number;
}

export interface LoadRun {
  responses: number;
  seconds: number;
  statuses: Record<string, number>;
  errors: number;
  timeouts: number;
  histogram: RecordableHistogram;
}

const newHistogram = () => createHistogram({ lowest: 1, highest: 3_600_000_000, figures: 3 });

/** Starts loading `target`; `stop()` ends it early (requests in flight are dropped). */
export function startLoad(target: Target, spec: LoadSpec): { done: Promise<LoadRun>; stop(): void } {
  const histogram = newHistogram();
  const statuses: Record<string, number> = {};
  let responses = 0;
  const dynamic = typeof spec.path === 'function' ? spec.path : null;
  const request: AutocannonRequest = dynamic
    ? { method: 'GET', setupRequest: (built) => ({ ...built, path: dynamic() }) }
    : { method: 'GET', path: spec.path as string };
  const started = performance.now();
  let instance: AutocannonInstance | undefined;
  const done = new Promise<LoadRun>((resolve, reject) => {
    instance = autocannon(
      {
        url: target.url,
        connections: spec.connections,
        duration: spec.seconds,
        headers: target.headers,
        requests: [request],
        timeout: spec.timeoutSeconds ?? 30,
      },
      (error, result) => {
        if (error) return reject(error);
        resolve({
          responses,
          seconds: (performance.now() - started) / 1000,
          statuses,
          errors: result.errors,
          timeouts: result.timeouts,
          histogram,
        });
      },
    );
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      responses += 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
      histogram.record(Math.max(1, Math.round(milliseconds * 1000)));
    });
  });
  return { done, stop: () => instance?.stop() };
}

export const runLoad = (target: Target, spec: LoadSpec) => startLoad(target, spec).done;

/**
 * A closed loop of `connections` clients starting requests for `seconds`, like autocannon, except
 * that requests still running at the end are waited for: a starved request counts with its whole
 * wait instead of vanishing, and the rate is answers over the time to the last one.
 */
export async function probe(target: Target, spec: LoadSpec): Promise<LoadRun> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const run: LoadRun = { responses: 0, seconds: 0, statuses: {}, errors: 0, timeouts: 0, histogram: newHistogram() };
  const pathOf = typeof spec.path === 'function' ? spec.path : () => spec.path as string;
  const get = (path: string) =>
    new Promise<number>((resolve) => {
      const request = http.get(`${target.url}${path}`, { agent, headers: target.headers }, (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      });
      request.on('error', () => resolve(-1));
      request.setTimeout((spec.timeoutSeconds ?? 300) * 1000, () => {
        resolve(-2);
        request.destroy();
      });
    });
  const started = performance.now();
  let last = started;
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() - started < spec.seconds * 1000) {
        const sent = performance.now();
        const status = await get(pathOf());
        last = performance.now();
        if (status === -1) run.errors += 1;
        else if (status === -2) run.timeouts += 1;
        else {
          run.responses += 1;
          run.statuses[status] = (run.statuses[status] ?? 0) + 1;
          run.histogram.record(Math.max(1, Math.round((last - sent) * 1000)));
        }
      }
    }),
  );
  agent.destroy();
  return { ...run, seconds: (last - started) / 1000 };
}

export interface Summary {
  responses: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  statuses: Record<string, number>;
  non2xx: number;
  errors: number;
  timeouts: number;
}

/** Rounds taken together: responses over their total time, percentiles of every response. */
export function summarize(runs: LoadRun[]): Summary {
  const histogram = newHistogram();
  const statuses: Record<string, number> = {};
  let responses = 0;
  let seconds = 0;
  let errors = 0;
  let timeouts = 0;
  for (const run of runs) {
    histogram.add(run.histogram);
    responses += run.responses;
    seconds += run.seconds;
    errors += run.errors;
    timeouts += run.timeouts;
    for (const [status, count] of Object.entries(run.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  }
  const non2xx = Object.entries(statuses).reduce(
    (sum, [status, count]) => (status.startsWith('2') ? sum : sum + count),
    0,
  );
  const percentile = (p: number) => (histogram.count === 0 ? NaN : histogram.percentile(p) / 1000);
  return {
    responses,
    seconds,
    rps: seconds > 0 ? responses / seconds : 0,
    p50ms: percentile(50),
    p99ms: percentile(99),
    statuses,
    non2xx,
    errors,
    timeouts,
  };
}

/** `sets` times A, B, B, A. */
export async function abba<T>(sets: number, a: () => Promise<T>, b: () => Promise<T>): Promise<{ a: T[]; b: T[] }> {
  const result = { a: [] as T[], b: [] as T[] };
  for (let set = 0; set < sets; set++) {
    result.a.push(await a());
    result.b.push(await b());
    result.b.push(await b());
    result.a.push(await a());
  }
  return result;
}

/** A deterministic pseudo-random integer generator in [0, n): both sides get the same sequence. */
export function sequence(n: number, seed = 1): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state % n;
  };
}
