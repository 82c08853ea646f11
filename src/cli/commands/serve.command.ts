import os from 'node:os';
import cluster from 'node:cluster';
import { processLogDestination } from '../../log.ts';
import { emit, optional, UsageError, type Command } from '../cli.ts';

/** `--workers`: a count, or `auto` (one per core); absent: WEB_CONCURRENCY (config), else 1. */
function workersOf(value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (value.toLowerCase() === 'auto') return os.availableParallelism();
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 1024)
    throw new UsageError(`--workers must be an integer from 1 to 1024 or auto, got ${JSON.stringify(value)}`);
  return count;
}

export const serveCommand: Command = {
  name: 'serve',
  usage: 'herd serve [--workers N|auto] [--json]',
  summary:
    'Serves the API on PORT and HOST (what `npm start` runs), migrating the database first; SIGTERM or SIGINT stops it gracefully.',
  flags: [
    [
      '--workers N|auto',
      'worker processes on the one port (default WEB_CONCURRENCY, else 1; auto: one per core). More than one needs DATABASE_URL; their limits and /metrics are shared',
    ],
  ],
  jsonResult:
    '{"url", "pid", "workers", "setup_url"} once it listens (the log then goes to stderr); setup_url is null unless the database holds no user',
  instead: 'run several servers on one PostgreSQL (DATABASE_URL) instead of the embedded database',
  options: { workers: { type: 'string' } },
  async run(values, context) {
    const workers = workersOf(optional(values, 'workers'), context.config.workers);
    // With --json stdout carries only the one result object; the log lines go to stderr.
    const logDestination = context.json ? processLogDestination(2) : undefined;
    const options = logDestination ? { logDestination } : {};
    // On an empty database, the one line a person reads among the log's: where to create the first account.
    const announce = (url: string, setupUrl: string | null, count: number) => {
      if (context.json) emit(context, { url, pid: process.pid, workers: count, setup_url: setupUrl }, []);
      else if (setupUrl) process.stdout.write(`${setupLine(setupUrl)}\n`);
    };
    // Loaded on demand: the other commands start without the whole HTTP layer.
    const { serveForever, setupLine } = await import('../../server.ts');
    if (workers > 1 && cluster.isPrimary) {
      const { serveFleet, FleetRefusal } = await import('../../fleet.ts');
      const fleet = await serveFleet(context.config, { workers, ...options }).catch((error: unknown) => {
        throw error instanceof FleetRefusal ? new UsageError(error.message) : error;
      });
      announce(fleet.url, fleet.setupUrl, workers);
      return;
    }
    const { fleetMetrics } = await import('../../fleet.ts');
    const server = await serveForever(context.config, { ...options, fleetMetrics: fleetMetrics() });
    // A fleet's worker: the primary prints the one result.
    if (cluster.isPrimary) announce(server.url, server.setupUrl, 1);
  },
};
