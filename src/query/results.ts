// Rows as the answer shows them: numbers as JSON numbers, date-times as ISO 8601 UTC, dates as
// YYYY-MM-DD (done in SQL), JSON as objects, uuids and text as strings.
import { CompiledQuery, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { shareParameters } from '../hogql/parameters.ts';
import type { HogType } from '../hogql/types.ts';

/** Runs a compiled query, equal values sharing one parameter (so a repeated expression is the same SQL). */
export async function executeCompiled(db: Db, query: RawBuilder<unknown>): Promise<Record<string, unknown>[]> {
  const shared = shareParameters(query.compile(db));
  const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(shared.sql, [...shared.parameters]));
  return result.rows;
}

export function answerValue(value: unknown, type: HogType): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  switch (type) {
    case 'int':
    case 'float': {
      const number = typeof value === 'number' ? value : Number(value);
      return Number.isFinite(number) ? number : null;
    }
    case 'json':
      return typeof value === 'string' ? JSON.parse(value) : value;
    default:
      return value;
  }
}

/** Each row of `c0`, `c1`… as an array in column order. */
export function answerRows(rows: Record<string, unknown>[], types: HogType[]): unknown[][] {
  return rows.map((row) => types.map((type, index) => answerValue(row[`c${index}`], type)));
}
