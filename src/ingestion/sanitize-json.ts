// PostgreSQL refuses NUL characters and unpaired surrogates in text and jsonb; a client can send
// both as JSON escapes. They become U+FFFD (as PostHog does for NUL) instead of a failed insert.

// Cheap test on JSON text: an escaped NUL or any escaped surrogate (paired ones are a false alarm).
const SUSPICIOUS_ESCAPE = /\\u(0000|d[89a-f])/i;

export const needsSanitizing = (jsonText: string): boolean => SUSPICIOUS_ESCAPE.test(jsonText);

export function wellFormedText(value: string): string {
  return value.toWellFormed().replaceAll('\u0000', '\uFFFD');
}

/** A copy with every string and key well formed; values without strings come back as they are. */
export function sanitizeJsonValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormedText(value);
  if (Array.isArray(value)) return value.map(sanitizeJsonValue);
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    const result: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) result[wellFormedText(key)] = sanitizeJsonValue(inner);
    return result;
  }
  return value;
}

/** JSON.parse, cleaning strings only when the text shows an escape that needs it. */
export function parseSanitizedJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  return needsSanitizing(text) ? sanitizeJsonValue(value) : value;
}
