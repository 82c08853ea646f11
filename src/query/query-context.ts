// What a query runs with: the database, the project, its time zone and the request's time.
import type { Db } from '../db/database.ts';
import { validationError } from '../errors.ts';
import { describeError, HogQLError } from '../hogql/errors.ts';

export interface QueryContext {
  db: Db;
  teamId: number;
  timezone: string;
  now: Date;
}

/** A HogQL error in the text given as `attr`, as a 400 naming the line and column. */
export function hogqlFailure(error: unknown, text: string, attr: string): unknown {
  if (!(error instanceof HogQLError)) return error;
  return validationError(describeError(error, text), attr, 'hogql_error');
}
