// POST /query/: the query node's `kind` picks what runs. Every answer is computed at once.
import { validationError } from '../errors.ts';
import { runEventsQuery } from './events-query.ts';
import { runHogQLQuery, type QueryAnswer } from './hogql-query.ts';
import type { QueryContext } from './query-context.ts';

export const QUERY_KINDS = ['HogQLQuery', 'EventsQuery'] as const;

export async function runQuery(context: QueryContext, body: unknown): Promise<QueryAnswer> {
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw validationError('The body must be a JSON object with a query.', 'query', 'required');
  const node = (body as { query?: unknown }).query;
  if (node === undefined || node === null) throw validationError('This field is required.', 'query', 'required');
  if (typeof node !== 'object' || Array.isArray(node))
    throw validationError('query must be an object with a kind.', 'query');
  const kind = (node as { kind?: unknown }).kind;
  if (kind === 'HogQLQuery') return runHogQLQuery(context, node as Record<string, unknown>);
  if (kind === 'EventsQuery') return runEventsQuery(context, node as Record<string, unknown>);
  if (kind === undefined) throw validationError('This field is required.', 'query.kind', 'required');
  throw validationError(
    `Unsupported query kind: ${typeof kind === 'string' ? kind.slice(0, 60) : JSON.stringify(kind)?.slice(0, 60)}. Supported: ${QUERY_KINDS.join(', ')}.`,
    'query.kind',
  );
}
