// Input that the database cannot hold or that a schema would wrongly coerce is turned away here,
// for every route at once: NUL characters (PostgreSQL text cannot store U+0000), paging values
// that are not plain decimal integers, JSON nested past what recursion can walk, and empty JSON
// bodies (read as no body at all, then as {}).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound, validationError } from '../../errors.ts';
import { jsonDepth, jsonTypeName, MAX_JSON_DEPTH } from '../../json-shape.ts';

/** The dotted path of the first string or key holding a NUL character, or null. */
export function nulPath(value: unknown, path: string): string | null {
  if (Buffer.isBuffer(value)) return null;
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = nulPath(value[index], path ? `${path}.${index}` : String(index));
      if (found !== null) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return here;
      const found = nulPath(item, here);
      if (found !== null) return found;
    }
  }
  return null;
}

/** A NUL character anywhere in the query or body is a 400 naming the field, never a database error. */
export async function rejectNulCharacters(request: FastifyRequest) {
  const attr = nulPath(request.query, '') ?? nulPath(request.body, '');
  if (attr !== null) throw validationError('Null characters are not allowed.', attr || null);
}

const PAGING_PARAMETERS = ['limit', 'offset'];
const DECIMAL = /^\d{1,15}$/;

/** Ajv would read "1e3", "0x10" or " 5" as numbers; the contract wants 400 for anything not an integer. */
function checkPagingText(query: Record<string, unknown>) {
  for (const name of PAGING_PARAMETERS) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (typeof raw !== 'string' || !DECIMAL.test(raw)) throw validationError('A valid integer is required.', name);
  }
}

interface BodySchema {
  type?: unknown;
  properties?: Record<string, { type?: unknown }>;
}

/**
 * Ajv coerces for the query string's sake (`ids=1` → [1]), and that would also make a body's
 * ["a"] or true into the string "a"/"true", or 5 into [5]. As DRF: a string field takes a string
 * or a number, a list field only a list.
 */
function checkBodyKinds(schema: BodySchema | undefined, body: unknown) {
  if (!schema?.properties || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  for (const [key, property] of Object.entries(schema.properties)) {
    const value = (body as Record<string, unknown>)[key];
    if (value === undefined || value === null) continue;
    if (property.type === 'string' && typeof value !== 'string' && typeof value !== 'number') {
      throw validationError('Not a valid string.', key);
    }
    if (property.type === 'array' && !Array.isArray(value)) {
      throw validationError(`Expected a list of items but got type "${jsonTypeName(value)}".`, key);
    }
  }
}

export function registerInputGuards(app: FastifyInstance) {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    if (text.length > MAX_JSON_DEPTH * 2 && jsonDepth(text) > MAX_JSON_DEPTH) {
      return done(validationError(`The JSON is nested more than ${MAX_JSON_DEPTH} levels deep.`), undefined);
    }
    parseJson(request, text, done);
  });

  app.addHook('preValidation', async (request) => {
    if (nulPath(request.params, '') !== null) throw notFound();
    // No body on a route that takes one reads as {} (as DRF does): missing fields then say `required`.
    if (request.body === undefined && request.routeOptions.schema?.body && ['POST', 'PUT', 'PATCH'].includes(request.method)) {
      request.body = {};
    }
    const query = request.query;
    if (query && typeof query === 'object') checkPagingText(query as Record<string, unknown>);
    await rejectNulCharacters(request);
    checkBodyKinds(request.routeOptions.schema?.body as BodySchema | undefined, request.body);
  });
}
