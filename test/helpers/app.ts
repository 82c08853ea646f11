// The real app over a fresh test database, with an explicit config and a controllable clock.
import { buildApp } from '../../src/app.ts';
import { defaultConfig, type Config } from '../../src/config.ts';
import type { Clock, Deps } from '../../src/deps.ts';
import type { App } from '../../src/http/route-module.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase, type TestDatabase } from './db.ts';

export class TestClock implements Clock {
  #now: Date | null;
  constructor(now: Date | null = null) {
    this.#now = now;
  }
  now(): Date {
    return this.#now ? new Date(this.#now) : new Date();
  }
  set(now: Date | string) {
    this.#now = new Date(now);
  }
  advance(ms: number) {
    this.#now = new Date(this.now().getTime() + ms);
  }
  /** Back to the real time. */
  release() {
    this.#now = null;
  }
}

export interface TestContext {
  app: App;
  deps: Deps;
  database: TestDatabase;
  clock: TestClock;
  close(): Promise<void>;
}

/** Builds the app over a new database. Call once per file and close it in `after`. */
export async function setupTestApp(
  options: { config?: Partial<Config>; clock?: TestClock; beforeReady?: (app: App) => void } = {},
): Promise<TestContext> {
  const database = await createTestDatabase();
  const clock = options.clock ?? new TestClock();
  const deps: Deps = {
    db: database.db,
    changes: database.changes,
    config: defaultConfig(options.config),
    clock,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
  };
  const app = await buildApp(deps, { beforeReady: options.beforeReady });
  const close = async () => {
    await app.close();
    await database.close();
  };
  return { app, deps, database, clock, close };
}

export type InjectMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A request through the app with `headers`; a payload goes as it is (inject sends an object as JSON). */
export const injectAs = (
  ctx: TestContext,
  method: InjectMethod,
  url: string,
  payload: unknown,
  headers: Record<string, string>,
) => ctx.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as string }) });
