// The event timestamp PostHog ingestion derives from what the client sent.

const FUTURE_TOLERANCE_MS = 23 * 60 * 60 * 1000;
// ISO-like text without a zone: read as UTC (as Luxon does), not as the server's local time.
const ZONELESS = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** A Date from client text, or null when it does not parse or its year is outside 1–9999. */
export function parseClientTime(value: string | Date | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  let date: Date;
  if (value instanceof Date) date = new Date(value.getTime());
  else {
    const text = value.trim();
    if (text === '') return null;
    date = new Date(ZONELESS.test(text) ? `${text.replace(' ', 'T')}Z` : text);
  }
  const time = date.getTime();
  if (Number.isNaN(time)) return null;
  const year = date.getUTCFullYear();
  // Year 0 is refused too: PostgreSQL has no year 0.
  return year < 1 || year > 9999 ? null : date;
}

export interface TimestampInput {
  timestamp?: string | Date | null;
  offset?: number | null;
  /** The event's $ignore_sent_at property: no clock-skew correction when truthy. */
  ignoreSentAt?: boolean;
}

/**
 * timestamp corrected for the client's clock skew (now + timestamp − sent_at), else as given;
 * an offset (ms before now) wins; neither → now. Over 23 h in the future → now. Invalid → now.
 */
export function resolveTimestamp(input: TimestampInput, now: Date, sentAt: Date | null): Date {
  let result: Date | null = now;
  if (input.offset !== undefined && input.offset !== null) {
    result = new Date(now.getTime() - input.offset);
  } else if (input.timestamp !== undefined && input.timestamp !== null) {
    const timestamp = parseClientTime(input.timestamp);
    if (timestamp === null) result = null;
    else if (sentAt !== null && !input.ignoreSentAt)
      result = new Date(now.getTime() + (timestamp.getTime() - sentAt.getTime()));
    else result = timestamp;
  }
  if (result === null || parseClientTime(result) === null) return new Date(now);
  if (result.getTime() - now.getTime() > FUTURE_TOLERANCE_MS) return new Date(now);
  return result;
}
