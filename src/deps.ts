// The composition root's shape: built once in server.ts (or a test) and passed down.
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Db } from './db/database.ts';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface Deps {
  readonly db: Db;
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Logger;
}
