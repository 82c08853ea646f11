// The composition root's shape: built once in server.ts (or a test) and passed down.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { DatabaseChanges } from './db/changes.ts';
import type { Db } from './db/database.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** The first-run setup token of an empty install (modules/setup/setup-gate.ts): only its digest is kept. */
export interface SetupTokenCheck {
  readonly isOpen: boolean;
  matches(token: unknown): boolean;
  close(): void;
}

export interface Deps {
  readonly db: Db;
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Logger;
  /** Where `db`'s access rows are announced changed; without it, access is looked up on every request. */
  readonly changes?: DatabaseChanges;
  /** Set by a server that started on a database without users; without it setup is closed. */
  readonly setup?: SetupTokenCheck;
}
