// The only reader of process.env: every setting is validated once, every bad key reported together.
import os from 'node:os';
import path from 'node:path';
import { Cron } from 'croner';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly databasePoolSize: number;
  /** Backends one per-person analytical query is split over (null: 3 on PostgreSQL, 1 on PGlite). */
  readonly analyticsSlices: number | null;
  readonly siteUrl: string | null;
  /** Set by `herd serve --workers N`'s primary for its workers: the digest of the setup token it printed. */
  readonly setupDigest: string | null;
  readonly rateLimit: boolean;
  /** Requests per key: a minute's burst and an hour's total, per tier (the analytics tier on top of the default). */
  readonly rateLimits: RateLimits;
  /**
   * Where the per-key budgets and the heavy-request slots are counted: `database` (shared by every
   * process on the database, the default with DATABASE_URL) or `process` (each process alone).
   */
  readonly limitsStore: 'database' | 'process';
  /** How long a heavy-request slot taken in the database stays held without renewal (a crashed holder's lapses then). */
  readonly heavySlotLeaseMs: number;
  /** Worker processes `herd serve` runs on its port (WEB_CONCURRENCY, `auto`: one per core). */
  readonly workers: number;
  readonly deletionSchedule: string | null;
  readonly logLevel: string;
  /** Per-statement time limit of a request in ms (0: none); `analytics` for analytical views and CSV exports. */
  readonly statementTimeoutMs: { readonly default: number; readonly analytics: number };
  /** Heavy requests (scans, analytical views, exports) in flight at once, and how long one may queue for a slot. */
  readonly heavyRequests: HeavyRequestLimits;
}

export interface RateLimits {
  readonly default: { readonly burst: number; readonly sustained: number };
  readonly analytics: { readonly burst: number; readonly sustained: number };
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  default: { burst: 480, sustained: 4800 },
  analytics: { burst: 240, sustained: 1200 },
};

export interface HeavyRequestLimits {
  readonly perKey: number;
  readonly perProject: number;
  readonly perProcess: number;
  /** Requests of one key waiting for a slot; one more is refused at once. */
  readonly queueLength: number;
  readonly queueWaitMs: number;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

const DAY_MS = 86_400_000;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const integer = (key: string, fallback: number, min: number, max: number): number => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
      return fallback;
    }
    return value;
  };

  const url = (key: string, protocols: string[]): string | null => {
    const raw = env[key];
    if (raw === undefined || raw === '') return null;
    // Not WHATWG URL parsing: "postgres://user@/db?host=/socket" is valid for pg but not for URL.
    const protocol = /^([a-z][a-z0-9+.-]*:)\/\//i.exec(raw)?.[1].toLowerCase();
    if (!protocol || !protocols.includes(protocol)) {
      problems.push(`${key} must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}`);
      return null;
    }
    return raw;
  };

  const rateLimitRaw = (env.RATE_LIMIT ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false', '1', '0'].includes(rateLimitRaw)) {
    problems.push(`RATE_LIMIT must be on or off, got ${JSON.stringify(env.RATE_LIMIT)}`);
  }

  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const schedule = env.DELETION_SCHEDULE || '0 5 * * 0';
  if (schedule.toLowerCase() !== 'off') {
    try {
      new Cron(schedule, { timezone: 'UTC', paused: true });
    } catch (error) {
      problems.push(
        `DELETION_SCHEDULE must be a cron expression or off, got ${JSON.stringify(schedule)} (${(error as Error).message})`,
      );
    }
  }

  const siteUrl = url('SITE_URL', ['http:', 'https:']);

  const poolSize = integer('DATABASE_POOL_SIZE', 10, 1, 1000);
  const databaseUrl = url('DATABASE_URL', ['postgres:', 'postgresql:', 'socket:']);

  const limitsStore = (env.LIMITS_STORE || (databaseUrl ? 'database' : 'process')).toLowerCase();
  if (limitsStore !== 'database' && limitsStore !== 'process') {
    problems.push(`LIMITS_STORE must be database or process, got ${JSON.stringify(env.LIMITS_STORE)}`);
  }

  const cores = os.availableParallelism();
  const workers = (env.WEB_CONCURRENCY ?? '').toLowerCase() === 'auto' ? cores : integer('WEB_CONCURRENCY', 1, 1, 1024);

  const config: Config = {
    port: integer('PORT', 8000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './.herd'),
    databaseUrl,
    databasePoolSize: poolSize,
    analyticsSlices: env.ANALYTICS_SLICES ? integer('ANALYTICS_SLICES', 1, 1, 16) : null,
    siteUrl: siteUrl ? siteUrl.replace(/\/+$/, '') : null,
    setupDigest: /^[0-9a-f]{64}$/.test(env.HERD_SETUP_DIGEST ?? '') ? (env.HERD_SETUP_DIGEST as string) : null,
    rateLimit: ['on', 'true', '1'].includes(rateLimitRaw),
    rateLimits: {
      default: {
        burst: integer('RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMITS.default.burst, 1, 1_000_000),
        sustained: integer('RATE_LIMIT_PER_HOUR', DEFAULT_RATE_LIMITS.default.sustained, 1, 100_000_000),
      },
      analytics: {
        burst: integer('ANALYTICS_RATE_LIMIT_PER_MINUTE', DEFAULT_RATE_LIMITS.analytics.burst, 1, 1_000_000),
        sustained: integer('ANALYTICS_RATE_LIMIT_PER_HOUR', DEFAULT_RATE_LIMITS.analytics.sustained, 1, 100_000_000),
      },
    },
    limitsStore: limitsStore === 'database' ? 'database' : 'process',
    heavySlotLeaseMs: integer('HEAVY_SLOT_LEASE_MS', 30_000, 1000, DAY_MS),
    workers,
    deletionSchedule: schedule.toLowerCase() === 'off' ? null : schedule,
    logLevel,
    statementTimeoutMs: {
      default: integer('STATEMENT_TIMEOUT_MS', 5000, 0, DAY_MS),
      analytics: integer('ANALYTICS_STATEMENT_TIMEOUT_MS', 30_000, 0, DAY_MS),
    },
    heavyRequests: {
      perKey: integer('HEAVY_REQUESTS_PER_KEY', 2, 1, 1000),
      perProject: integer('HEAVY_REQUESTS_PER_PROJECT', 3, 1, 1000),
      // About 40% of the pool: a heavy persons list holds two connections (count and page), so
      // the rest stays free for light requests.
      perProcess: integer('HEAVY_REQUESTS_PER_PROCESS', Math.max(1, Math.floor(poolSize * 0.4)), 1, 1000),
      queueLength: integer('HEAVY_QUEUE_LENGTH', 16, 0, 100_000),
      queueWaitMs: integer('HEAVY_QUEUE_WAIT_MS', 10_000, 0, 600_000),
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** A config for tests and tools: defaults with explicit overrides, no environment read. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({
    ...loadConfig({}),
    rateLimit: false,
    logLevel: 'silent',
    deletionSchedule: null,
    ...overrides,
  });
}
