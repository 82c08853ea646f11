// The only reader of process.env: every setting is validated once, every bad key reported together.
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
  readonly rateLimit: boolean;
  readonly deletionSchedule: string | null;
  readonly logLevel: string;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

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
      problems.push(`DELETION_SCHEDULE must be a cron expression or off, got ${JSON.stringify(schedule)} (${(error as Error).message})`);
    }
  }

  const siteUrl = url('SITE_URL', ['http:', 'https:']);

  const config: Config = {
    port: integer('PORT', 8000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR || './.herd'),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:', 'socket:']),
    databasePoolSize: integer('DATABASE_POOL_SIZE', 10, 1, 1000),
    analyticsSlices: env.ANALYTICS_SLICES ? integer('ANALYTICS_SLICES', 1, 1, 16) : null,
    siteUrl: siteUrl ? siteUrl.replace(/\/+$/, '') : null,
    rateLimit: ['on', 'true', '1'].includes(rateLimitRaw),
    deletionSchedule: schedule.toLowerCase() === 'off' ? null : schedule,
    logLevel,
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** A config for tests and tools: defaults with explicit overrides, no environment read. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return Object.freeze({ ...loadConfig({}), rateLimit: false, logLevel: 'silent', deletionSchedule: null, ...overrides });
}
