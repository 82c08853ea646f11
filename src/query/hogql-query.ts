// HogQLQuery: a HogQL SELECT with `{placeholders}` from `values`, compiled and run over this
// project's rows, answered as the platform's query endpoint does.
import { compileQuery } from '../hogql/compiler.ts';
import { parseSelect } from '../hogql/parser.ts';
import { printSelect } from '../hogql/printer.ts';
import { typeName } from '../hogql/types.ts';
import { validationError } from '../errors.ts';
import { hogqlFailure, type QueryContext } from './query-context.ts';
import { queryFailure } from './query-errors.ts';
import { answerRows, executeCompiled } from './results.ts';

export interface HogQLQueryNode {
  kind: 'HogQLQuery';
  query: string;
  values?: Record<string, unknown>;
}

export interface QueryAnswer {
  results: unknown[][];
  columns: string[];
  types: unknown[];
  hasMore: boolean;
  limit: number;
  offset: number;
  hogql: string;
}

function valuesOf(node: Record<string, unknown>): Record<string, unknown> {
  const values = node.values ?? {};
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    throw validationError('values must be an object of placeholder names and their values.', 'query.values');
  return values as Record<string, unknown>;
}

export function compileHogQLQuery(context: QueryContext, node: Record<string, unknown>) {
  const text = node.query;
  if (typeof text !== 'string' || text.trim() === '')
    throw validationError(
      'query must be a HogQL SELECT as text.',
      'query.query',
      text === undefined ? 'required' : 'invalid_input',
    );
  const values = valuesOf(node);
  try {
    const select = parseSelect(text);
    const compiled = compileQuery(select, {
      teamId: context.teamId,
      timezone: context.timezone,
      now: context.now,
      values,
    });
    const shown = { ...select, limit: { kind: 'literal' as const, value: compiled.page.limit, start: 0 } };
    return { compiled, hogql: printSelect(shown) };
  } catch (error) {
    throw hogqlFailure(error, text, 'query.query');
  }
}

export async function runHogQLQuery(context: QueryContext, node: Record<string, unknown>): Promise<QueryAnswer> {
  const { compiled, hogql } = compileHogQLQuery(context, node);
  let rows: Record<string, unknown>[];
  try {
    rows = await executeCompiled(context.db, compiled.sql);
  } catch (error) {
    throw queryFailure(error, 'query.query');
  }
  const { limit, offset } = compiled.page;
  const types = compiled.columns.map((column) => column.compiled.type);
  return {
    results: answerRows(rows.slice(0, limit), types),
    columns: compiled.columns.map((column) => column.name),
    types: compiled.columns.map((column) => [column.name, typeName(column.compiled)]),
    hasMore: rows.length > limit,
    limit,
    offset,
    hogql,
  };
}
