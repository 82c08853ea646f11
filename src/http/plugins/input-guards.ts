// Input that the database cannot hold or that a schema would wrongly coerce is turned away here,
// for every route at once: NUL characters (PostgreSQL text cannot store U+0000), paging values
// that are not plain decimal integers, JSON nested past what recursion can walk, and empty JSON
// bodies (read as no body at all, then as {}).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound, validationError } from '../../errors.ts';
import { jsonDepth, jsonTypeName, MAX_JSON_DEPTH, shownValue } from '../../json-shape.ts';
import { MAX_LIMIT } from '../../wire/page.ts';
import { TYPE_MESSAGES } from './errors.ts';

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
export function rejectNulCharacters(request: FastifyRequest) {
  const attr = nulPath(request.query, '') ?? nulPath(request.body, '');
  if (attr !== null) throw validationError('Null characters are not allowed.', attr || null);
}

// The lowest value of each paging parameter; an offset past the largest safe integer is refused too.
const PAGING_MINIMUM: Record<string, number> = { limit: 1, offset: 0 };
const INTEGER = /^-?\d+$/;

/**
 * Ajv would read "1e3", "0x10" or " 5" as numbers; the API answers 400 for anything not an
 * integer. Every refusal says the allowed range.
 */
function checkPagingText(query: Record<string, unknown>) {
  for (const [name, minimum] of Object.entries(PAGING_MINIMUM)) {
    const raw = query[name];
    if (raw === undefined) continue;
    if (typeof raw !== 'string' || !INTEGER.test(raw))
      throw validationError(`A valid integer greater than or equal to ${minimum} is required.`, name);
    const value = Number(raw);
    if (value < minimum) throw validationError(`Ensure this value is greater than or equal to ${minimum}.`, name);
    if (value > Number.MAX_SAFE_INTEGER) {
      // A limit too long to be a safe number is still an integer, and a larger limit is clamped.
      if (name === 'limit') query[name] = String(MAX_LIMIT);
      else throw validationError(`Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`, name);
    }
  }
}

interface PropertySchema {
  type?: unknown;
  const?: unknown;
  title?: unknown;
  anyOf?: PropertySchema[];
  items?: PropertySchema;
}

interface BodySchema {
  properties?: Record<string, PropertySchema>;
}

/** The values of a choice field (a union of constants), or null. */
function choicesOf(property: PropertySchema): unknown[] | null {
  const options = property.anyOf;
  return options && options.length > 0 && options.every((option) => 'const' in option)
    ? options.map((option) => option.const)
    : null;
}

/** The schema a value must meet, a Nullable wrapper looked through. */
function unwrapNullable(property: PropertySchema): PropertySchema {
  const options = property.anyOf?.filter((option) => option.type !== 'null');
  return options?.length === 1 ? options[0] : property;
}

/** " Choose 1 (member), 8 (admin) or 15 (owner)." when every choice has a title; else nothing. */
function choiceHint(property: PropertySchema): string {
  const options = property.anyOf ?? [];
  if (!options.every((option) => typeof option.title === 'string')) return '';
  const named = options.map((option) => `${String(option.const)} (${String(option.title)})`);
  return ` Choose ${named.slice(0, -1).join(', ')} or ${named[named.length - 1]}.`;
}

// The JSON kinds a scalar of each declared type may arrive as, as DRF reads them: a string field
// takes a number, a number field its text, a boolean field "true" or 1.
const SCALAR_KINDS: Record<string, string[]> = {
  string: ['string', 'number'],
  integer: ['number', 'string'],
  number: ['number', 'string'],
  boolean: ['boolean', 'string', 'number'],
  null: ['null'],
};

const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value);

/** The kinds a scalar schema (or a union of scalars) accepts; null for any other schema (lists, objects, anything). */
function scalarKinds(schema: PropertySchema | undefined): Set<string> | null {
  if (!schema) return null;
  const kinds = new Set<string>();
  for (const option of schema.anyOf ?? [schema]) {
    const accepted = typeof option.type === 'string' ? SCALAR_KINDS[option.type] : undefined;
    if (!accepted) return null;
    for (const kind of accepted) kinds.add(kind);
  }
  return kinds;
}

/** What a refused scalar hears: the message of the schema's first declared type. */
function scalarMessage(schema: PropertySchema): string {
  const first = (schema.anyOf ?? [schema]).find((option) => option.type !== 'null');
  return TYPE_MESSAGES[String(first?.type)] ?? 'Invalid input.';
}

/**
 * Ajv coerces for the query string's sake (`ids=1` → [1]), and that would also make a body's
 * ["a"] or true into the string "a"/"true", 5 into [5], true into 1, [15] into 15, a list item
 * [1] into "1" and null into "". As DRF: a scalar field takes a scalar of its kinds (a choice
 * field one of its choices or its text; null is no choice), a list field only a list whose every
 * item is a scalar of the item's kinds: a nested list, an object or a null item is refused,
 * naming the item (`ids.0`), before anything reads it.
 */
function checkBodyKinds(schema: BodySchema | undefined, body: unknown) {
  if (!schema?.properties || body === null || typeof body !== 'object' || Array.isArray(body)) return;
  for (const [key, declared] of Object.entries(schema.properties)) {
    const value = (body as Record<string, unknown>)[key];
    if (value === undefined) continue;
    const choices = choicesOf(declared);
    if (choices) {
      if (!choices.some((choice) => choice === value || String(choice) === value)) {
        throw validationError(
          `"${shownValue(value)}" is not a valid choice.${choiceHint(declared)}`,
          key,
          'invalid_choice',
        );
      }
      continue;
    }
    if (value === null) continue;
    const property = unwrapNullable(declared);
    const kinds = scalarKinds(property);
    if (kinds && !kinds.has(kindOf(value))) throw validationError(scalarMessage(property), key);
    if (property.type !== 'array') continue;
    if (!Array.isArray(value))
      throw validationError(`Expected a list of items but got type "${jsonTypeName(value)}".`, key);
    const itemKinds = scalarKinds(property.items);
    if (!itemKinds) continue;
    const index = value.findIndex((item) => !itemKinds.has(kindOf(item)));
    if (index !== -1) throw validationError(scalarMessage(property.items as PropertySchema), `${key}.${index}`);
  }
}

/** Throws the refusal of the first guard the request fails. */
function guardInput(request: FastifyRequest) {
  if (nulPath(request.params, '') !== null) throw notFound();
  // No body on a route that takes one reads as {} (as DRF does): missing fields then say `required`.
  if (
    request.body === undefined &&
    request.routeOptions.schema?.body &&
    ['POST', 'PUT', 'PATCH'].includes(request.method)
  ) {
    request.body = {};
  }
  const query = request.query;
  if (query && typeof query === 'object') checkPagingText(query as Record<string, unknown>);
  rejectNulCharacters(request);
  checkBodyKinds(request.routeOptions.schema?.body as BodySchema | undefined, request.body);
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

  app.addHook('preValidation', (request, _reply, done) => {
    try {
      guardInput(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
