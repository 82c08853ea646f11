// config → database → migrate → buildApp → listen; SIGTERM/SIGINT close gracefully. The only listener.
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import { openDatabase } from './db/database.ts';
import { migrateOpened } from './db/migrate.ts';
import { startDeletionScheduler } from './jobs/deletion-scheduler.ts';
import { SetupGate } from './modules/setup/setup-gate.ts';
import { systemClock, type Deps } from './deps.ts';
import { createLogger, processLogDestination } from './log.ts';
import type { App } from './http/route-module.ts';
import type { FleetMetrics } from './http/plugins/metrics.ts';

export interface RunningServer {
  app: App;
  deps: Deps;
  url: string;
  /** On a database without users: the link that creates the first account (printed once, kept nowhere). */
  setupUrl: string | null;
  close(): Promise<void>;
}

/** The one line a server on an empty database prints (standard output and the log). */
export const setupLine = (setupUrl: string) => `herd: no account yet — open ${setupUrl} to create the first one`;

/** Extra parts that run beside the HTTP server (the deletion scheduler), started after listen. */
export type ServerExtension = (deps: Deps) => { stop(): Promise<void> | void };
export const serverExtensions: ServerExtension[] = [(deps) => startDeletionScheduler(deps)];

export interface ServerOptions {
  /** Where the JSON log lines go (default stdout; the CLI's --json sends them to stderr). */
  logDestination?: DestinationStream;
  /** In a worker of `herd serve --workers N`: /metrics adds up every worker's. */
  fleetMetrics?: FleetMetrics | null;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const log = createLogger(config.logLevel, options.logDestination ?? processLogDestination(1));
  // The HTTP layer's modules (over a thousand files) load while the database opens: a fresh
  // DATA_DIR's image is copied and PGlite's WebAssembly compiled on other threads meanwhile.
  const opening = openDatabase(config);
  const [handle, { buildApp }] = await Promise.all([opening, import('./app.ts')]).catch(async (error: unknown) => {
    // Either may have failed alone: an opened database is closed again (its DATA_DIR lock released).
    await opening.then(
      (opened) => opened.close(),
      () => undefined,
    );
    throw error;
  });
  const { applied, distributed } = await migrateOpened(handle);
  if (applied.length > 0) log.info({ migrations: applied }, 'migrations applied');
  if (distributed.length > 0) log.info({ tables: distributed }, 'distributed on Citus');
  const setup = await SetupGate.open(handle.db, config.setupDigest);
  const deps: Deps = { db: handle.db, config, clock: systemClock, log, changes: handle.changes, setup: setup?.gate };
  const app = await buildApp(deps, { fleetMetrics: options.fleetMetrics });
  const url = await app.listen({ port: config.port, host: config.host });
  const setupUrl = setup?.token ? setupUrlOf(config, url, setup.token) : null;
  if (setupUrl) log.info({ setupUrl }, setupLine(setupUrl));
  const extensions = serverExtensions.map((start) => start(deps));

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= (async () => {
      for (const extension of extensions) await extension.stop();
      await app.close();
      await handle.close();
    })();
    return closing;
  };
  return { app, deps, url, setupUrl, close };
}

/** Where the first account is created: SITE_URL, else the address the server listens on. */
export function setupUrlOf(config: Config, url: string, token: string): string {
  return `${config.siteUrl ?? url}/#/setup?token=${token}`;
}

/** Runs until SIGTERM or SIGINT: stop accepting, finish requests in flight, close the database, exit 0. */
export async function serveForever(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const server = await startServer(config, options);
  const shutdown = (signal: string) => {
    server.deps.log.info({ signal }, 'shutting down');
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.deps.log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  return server;
}
