// `herd serve --workers N`: one port, N worker processes (node:cluster; the primary hands each new
// connection to the next worker). The primary migrates the database once, forks the workers,
// replaces (and logs) one that dies, answers a worker's /metrics with every worker's metrics added
// up (prom-client's AggregatorRegistry), and on SIGTERM or SIGINT stops them all, each finishing
// its requests in flight. The embedded database is one process's: workers need DATABASE_URL.
import cluster, { type Worker } from 'node:cluster';
import type { DestinationStream, Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import type { Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateOpened } from './db/migrate.ts';
import { SetupGate } from './modules/setup/setup-gate.ts';
import { anyUserExists } from './modules/users/users.repository.ts';
import { setupLine, setupUrlOf } from './server.ts';
import type { FleetMetrics, MetricsJson } from './http/plugins/metrics.ts';
import { createLogger, processLogDestination } from './log.ts';

export class FleetRefusal extends Error {}

/** What `herd serve --workers N` refuses without DATABASE_URL. */
export const PGLITE_REFUSAL =
  'several workers need DATABASE_URL: the embedded database (PGlite, DATA_DIR) is opened by one process only; run one worker, or point DATABASE_URL at PostgreSQL';

interface Message {
  herd?: 'metrics?' | 'collect' | 'collected' | 'metrics';
  id?: number;
  metrics?: MetricsJson;
  text?: string;
}

const COLLECT_TIMEOUT_MS = 5000;

export interface FleetOptions {
  workers: number;
  logDestination?: DestinationStream;
}

/** In the primary: migrates, forks, and resolves with the URL once every worker listens. */
export async function serveFleet(
  config: Config,
  options: FleetOptions,
): Promise<{ url: string; setupUrl: string | null }> {
  if (!config.databaseUrl) throw new FleetRefusal(PGLITE_REFUSAL);
  const log = createLogger(config.logLevel, options.logDestination ?? processLogDestination(1)).child({
    module: 'fleet',
  });
  const handle = await openDatabase(config);
  // On an empty database the primary makes the one setup token; every worker checks its digest.
  let setup: { token: string; digest: string } | null = null;
  try {
    const { applied } = await migrateOpened(handle);
    if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
    if (!(await anyUserExists(handle.db))) setup = SetupGate.newToken();
  } finally {
    await handle.close();
  }

  let stopping = false;
  const listening = new Set<Worker>();
  let url = '';
  let started: (url: string) => void = () => undefined;
  let failed: (error: Error) => void = () => undefined;
  const ready = new Promise<string>((resolve, reject) => ((started = resolve), (failed = reject)));

  const fork = () => {
    const worker = cluster.fork(setup ? { HERD_SETUP_DIGEST: setup.digest } : {});
    worker.on('message', (message: Message) => answerMetrics(worker, message, log));
    worker.once('listening', (address) => {
      listening.add(worker);
      url = `http://${address.address ?? config.host}:${address.port}`;
      log.info({ worker: worker.process.pid }, 'worker listening');
      if (listening.size === options.workers) started(url);
    });
    worker.once('exit', (code, signal) => {
      const listened = listening.delete(worker);
      if (stopping) return;
      if (!listened) {
        // A worker that never listened will not do better the next time (bad config, no database).
        failed(new Error(`a worker exited before it listened (code ${code}, signal ${signal})`));
        stopAll(1);
        return;
      }
      log.error({ worker: worker.process.pid, code, signal }, 'worker died; starting another');
      fork();
    });
  };

  const stopAll = (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
    let left = workers.length;
    if (left === 0) process.exit(exitCode);
    for (const worker of workers) {
      worker.once('exit', () => {
        left -= 1;
        if (left === 0) {
          log.info({ exitCode }, 'every worker stopped');
          process.exit(exitCode);
        }
      });
      worker.process.kill('SIGTERM');
    }
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal, workers: listening.size }, 'shutting down every worker');
      stopAll(0);
    });
  }

  for (let n = 0; n < options.workers; n++) fork();
  await ready;
  log.info({ url, workers: options.workers }, 'fleet listening');
  const setupUrl = setup ? setupUrlOf(config, url, setup.token) : null;
  if (setupUrl) log.info({ setupUrl }, setupLine(setupUrl));
  return { url, setupUrl };
}

const pending = new Map<number, { responses: MetricsJson[]; left: number; done: () => void }>();
let nextCollect = 0;

/** In the primary: a worker's /metrics asks for every worker's metrics, added up. */
function answerMetrics(requester: Worker, message: Message, log: Logger) {
  if (message.herd === 'collected' && message.id !== undefined) {
    const collect = pending.get(message.id);
    if (!collect) return;
    collect.responses.push(message.metrics ?? []);
    collect.left -= 1;
    if (collect.left === 0) collect.done();
    return;
  }
  if (message.herd !== 'metrics?') return;
  const workers = Object.values(cluster.workers ?? {}).filter(
    (worker): worker is Worker => worker !== undefined && worker.isConnected(),
  );
  const id = nextCollect++;
  const collect = { responses: [] as MetricsJson[], left: workers.length, done: () => undefined as void };
  // A worker that does not answer in time (busy, or dying) is left out of this scrape.
  const timer = setTimeout(() => collect.done(), COLLECT_TIMEOUT_MS);
  collect.done = () => {
    clearTimeout(timer);
    pending.delete(id);
    const added = (async () => AggregatorRegistry.aggregate(collect.responses as never).metrics())();
    added
      .catch((error: unknown) => {
        log.error({ err: error }, 'metrics not added up');
        return '';
      })
      .then((text) => {
        if (requester.isConnected()) requester.send({ herd: 'metrics', id: message.id, text });
      });
  };
  pending.set(id, collect);
  for (const worker of workers) worker.send({ herd: 'collect', id });
}

/** In a worker: the metrics bridge to the primary (null outside a fleet). */
export function fleetMetrics(): FleetMetrics | null {
  if (!cluster.isWorker) return null;
  let own: () => Promise<MetricsJson> = async () => [];
  let next = 0;
  const waiting = new Map<number, (text: string) => void>();
  process.on('message', (message: Message) => {
    if (message.herd === 'collect') {
      own().then(
        (metrics) => process.send?.({ herd: 'collected', id: message.id, metrics }),
        () => process.send?.({ herd: 'collected', id: message.id, metrics: [] }),
      );
    } else if (message.herd === 'metrics' && message.id !== undefined) {
      waiting.get(message.id)?.(message.text ?? '');
      waiting.delete(message.id);
    }
  });
  return {
    attach: (collect) => (own = collect),
    gather: () =>
      new Promise<string>((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        process.send?.({ herd: 'metrics?', id });
      }),
  };
}
