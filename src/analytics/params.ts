// Parameter intake of the analytical views: query string merged with a JSON body (body wins),
// structured values JSON-encoded in the query string. Every bad value is a 400 naming the parameter.
import { validationError } from '../errors.ts';
import { pageOf, type PageRequest } from '../wire/page.ts';
import { INTERVALS, resolveRange, type Interval, type LocalRange } from './date-range.ts';

export type RawParams = Record<string, unknown>;

/** Query string and body merged; body keys win (PostHog's filter intake). */
export function mergeParams(query: unknown, body: unknown): RawParams {
  const merged: RawParams = {};
  if (query && typeof query === 'object') Object.assign(merged, query);
  // A body that is present must be an object, `null` included.
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw validationError('Invalid data. Expected a dictionary.', null);
  }
  if (body && typeof body === 'object') Object.assign(merged, body);
  for (const [key, value] of Object.entries(merged)) {
    if (holdsNul(value, 0)) throw validationError('Null characters are not allowed.', key);
  }
  return merged;
}

/** PostgreSQL text cannot hold U+0000 (also inside JSON-encoded values); such input is a 400, not a 500. */
function holdsNul(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return value.includes('\u0000') || value.includes('\\u0000');
  if (depth > 64 || value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([key, item]) => key.includes('\u0000') || holdsNul(item, depth + 1));
}

/** A scalar parameter as text; a repeated query key counts by its last value. */
export function stringParam(raw: RawParams, key: string): string | undefined {
  let value = raw[key];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) value = value[value.length - 1];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw validationError('Not a valid string.', key);
}

/** A structured parameter: JSON text in a query string, native JSON in a body. */
export function jsonParam(raw: RawParams, key: string, unparsable = `${key} is not valid JSON.`): unknown {
  const value = raw[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    throw validationError(unparsable, key);
  }
}

/** "A valid integer is required.", with the allowed range when there is one. */
function integerRequired(key: string, { min, max }: { min?: number; max?: number }) {
  const range =
    min !== undefined && max !== undefined
      ? ` from ${min} to ${max}`
      : min !== undefined
        ? ` greater than or equal to ${min}`
        : '';
  return validationError(`A valid integer${range} is required.`, key);
}

export function intParam(
  raw: RawParams,
  key: string,
  options: { min?: number; max?: number } = {},
): number | undefined {
  const text = stringParam(raw, key);
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text.trim())) throw integerRequired(key, options);
  const value = Number(text);
  if (options.min !== undefined && value < options.min)
    throw validationError(`Ensure this value is greater than or equal to ${options.min}.`, key);
  if (options.max !== undefined && value > options.max)
    throw validationError(`Ensure this value is less than or equal to ${options.max}.`, key);
  if (!Number.isSafeInteger(value)) throw integerRequired(key, options);
  return value;
}

/** Booleans arrive as "true"/"false", case-insensitively. */
export function boolParam(raw: RawParams, key: string): boolean | undefined {
  const text = stringParam(raw, key);
  if (text === undefined) return undefined;
  const lower = text.toLowerCase();
  if (lower === 'true' || lower === '1') return true;
  if (lower === 'false' || lower === '0') return false;
  throw validationError('Must be a valid boolean.', key);
}

export function choiceParam<T extends string>(raw: RawParams, key: string, choices: readonly T[], fallback: T): T {
  const text = stringParam(raw, key);
  if (text === undefined) return fallback;
  if (!(choices as readonly string[]).includes(text))
    throw validationError(`"${text}" is not a valid choice.`, key, 'invalid_choice');
  return text as T;
}

export function intervalParam(raw: RawParams): Interval {
  return choiceParam(raw, 'interval', INTERVALS, 'day');
}

/** limit/offset as every list of the API takes them; below 1 is a 400. */
export function pageParams(raw: RawParams, limitKey = 'limit', offsetKey = 'offset'): PageRequest {
  return pageOf({ limit: intParam(raw, limitKey, { min: 1 }), offset: intParam(raw, offsetKey, { min: 0 }) });
}

/** The view's date range from `date_from`, `date_to` and `explicit_date`, in the project's timezone. */
export function rangeParam(raw: RawParams, context: { timezone: string; now: Date }, interval: Interval): LocalRange {
  return resolveRange({
    dateFrom: stringParam(raw, 'date_from'),
    dateTo: stringParam(raw, 'date_to'),
    interval,
    explicit: boolParam(raw, 'explicit_date') ?? false,
    timezone: context.timezone,
    now: context.now,
  });
}
