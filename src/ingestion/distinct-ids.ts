// Distinct id rules of PostHog capture and ingestion: how a raw value becomes a distinct id, and
// which ids may never take part in a merge (placeholders SDKs send before a real id is known).

export const MAX_DISTINCT_ID_LENGTH = 200;

const ILLEGAL_CASE_INSENSITIVE = new Set([
  'anonymous',
  'guest',
  'distinctid',
  'distinct_id',
  'id',
  'not_authenticated',
  'email',
  'undefined',
  'true',
  'false',
]);
const ILLEGAL_EXACT = new Set(['[object Object]', 'NaN', 'None', 'none', 'null', '0', 'undefined']);

/** Non-strings are JSON text (23 → "23"), NUL becomes U+FFFD, at most 200 characters; null when absent or empty. */
export function cleanDistinctId(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  let value = typeof raw === 'string' ? raw : JSON.stringify(raw);
  value = value.replaceAll('\u0000', '\uFFFD');
  value = cutToCodePoints(value, MAX_DISTINCT_ID_LENGTH);
  return value === '' ? null : value;
}

/** At most `max` characters, cut by code points so a surrogate pair is never split. */
export function cutToCodePoints(value: string, max: number): string {
  return value.length > max ? Array.from(value).slice(0, max).join('') : value;
}

function unquoted(value: string): string[] {
  const match = /^(['"])(.*)\1$/.exec(value);
  return match ? [value, match[2]] : [value];
}

/** PostHog's cannot_merge_with_illegal_distinct_id list: blank, placeholders, and quoted placeholders. */
export function isIllegalDistinctId(value: string): boolean {
  if (value.trim() === '') return true;
  return unquoted(value).some(
    (candidate) => ILLEGAL_CASE_INSENSITIVE.has(candidate.toLowerCase()) || ILLEGAL_EXACT.has(candidate),
  );
}
