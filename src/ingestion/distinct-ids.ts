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
  // Cut by code points so a surrogate pair is never split.
  if (value.length > MAX_DISTINCT_ID_LENGTH) value = Array.from(value).slice(0, MAX_DISTINCT_ID_LENGTH).join('');
  return value === '' ? null : value;
}

function unquoted(value: string): string[] {
  const match = /^(['"])(.*)\1$/.exec(value);
  return match ? [value, match[2]] : [value];
}

/** PostHog's cannot_merge_with_illegal_distinct_id list: blank, placeholders, and quoted placeholders. */
export function isIllegalDistinctId(value: string): boolean {
  if (value.trim() === '') return true;
  return unquoted(value).some((candidate) => ILLEGAL_CASE_INSENSITIVE.has(candidate.toLowerCase()) || ILLEGAL_EXACT.has(candidate));
}
