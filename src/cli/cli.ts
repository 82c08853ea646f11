// What every herd command shares: argument parsing (node:util parseArgs, strict), the usage error
// that exits 2, output (one JSON object with --json, else lines for people), and opening the
// database with migrations applied.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import pino from 'pino';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { systemClock, type Deps } from '../deps.ts';
import { createLogger } from '../log.ts';

/** A wrong or missing argument: printed on stderr, exit code 2, nothing written. */
export class UsageError extends Error {}

export interface CommandContext {
  json: boolean;
  config: Config;
}

export interface Command {
  /** The words that name it: "users add". */
  name: string;
  usage: string;
  /** What it does, one sentence (the help's first line). */
  summary: string;
  /** Each option as the usage writes it, with what it means (--json and --help are added). */
  flags: [string, string][];
  /** What --json prints on success. */
  jsonResult: string;
  /** The way to the same end while another process holds the embedded database ("use … POST …"). */
  instead: string;
  options: ParseArgsOptionsConfig;
  /** Checks every argument before anything opens the database; throws UsageError. */
  run(values: Record<string, string | boolean | undefined>, context: CommandContext): Promise<void>;
}

export const JSON_OPTION = { json: { type: 'boolean' } } as const satisfies ParseArgsOptionsConfig;

export function parseCommandArgs(command: Command, args: string[]) {
  try {
    const { values } = parseArgs({
      args,
      options: { ...JSON_OPTION, ...command.options },
      strict: true,
      allowPositionals: false,
    });
    return values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nusage: ${command.usage}`);
  }
}

export function loadCliConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

let emitted = false;

/** Whether the command's result has been printed (a later failure must not print a second object). */
export const hasEmitted = () => emitted;

/** Prints the result: exactly one JSON object with --json, else the human lines. */
export function emit(context: CommandContext, object: Record<string, unknown>, lines: string[]) {
  process.stdout.write(context.json ? `${JSON.stringify(object)}\n` : `${lines.join('\n')}\n`);
  emitted = true;
}

export function required(values: Record<string, string | boolean | undefined>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

export function optional(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} may not be blank`);
  return value.trim();
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function email(values: Record<string, string | boolean | undefined>, name = 'email'): string {
  const value = required(values, name);
  if (!EMAIL.test(value) || value.length > 254)
    throw new UsageError(`--${name} must be an e-mail address, got ${JSON.stringify(value)}`);
  return value;
}

export const list = (value: string | undefined) =>
  value === undefined
    ? []
    : value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');

/** Opens the configured database, applies migrations, runs the work, closes. Logs go to stderr. */
export async function withDeps<T>(config: Config, work: (deps: Deps) => Promise<T>): Promise<T> {
  const log = createLogger(config.logLevel, pino.destination(2));
  const handle = await openDatabase(config);
  try {
    await migrateToLatest(handle.db);
    return await work({ db: handle.db, config, clock: systemClock, log });
  } finally {
    await handle.close();
  }
}
