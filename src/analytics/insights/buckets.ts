// The interval buckets an insight reports on, and their wire texts: `days` (`2024-01-01`, or
// `2024-01-01 14:00:00` for hours) and human `labels` (`1-Jan-2024`, `1-Jan-2024 14:00`).
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../../errors.ts';
import { addInterval, formatLocal, truncate, type Interval } from '../date-range.ts';

/** More buckets than any chart can show is a mistake in the request, not work to do. */
export const MAX_BUCKETS = 5000;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The starts (local times) of the buckets from the one holding `from` to the one holding `last`. */
export function bucketStarts(from: Date, last: Date, interval: Interval): Date[] {
  const starts: Date[] = [];
  for (let start = truncate(from, interval); start <= last; start = addInterval(start, interval, 1)) {
    if (starts.length === MAX_BUCKETS)
      throw validationError(
        `The range holds more than ${MAX_BUCKETS} intervals; choose a longer interval.`,
        'interval',
      );
    starts.push(start);
  }
  return starts;
}

const pad = (value: number) => String(value).padStart(2, '0');

/** `YYYY-MM-DD`, with ` HH:MM:SS` for hours: also the bucket's `date_from` in a persons link. */
export function dayText(start: Date, interval: Interval): string {
  const date = `${start.getUTCFullYear()}-${pad(start.getUTCMonth() + 1)}-${pad(start.getUTCDate())}`;
  return interval === 'hour' ? `${date} ${pad(start.getUTCHours())}:00:00` : date;
}

export function labelText(start: Date, interval: Interval): string {
  const date = `${start.getUTCDate()}-${MONTHS[start.getUTCMonth()]}-${start.getUTCFullYear()}`;
  return interval === 'hour' ? `${date} ${pad(start.getUTCHours())}:00` : date;
}

/** The starts as an SQL `timestamp[]`, to join buckets against. */
export function startsSql(starts: Date[]): RawBuilder<Date[]> {
  return sql<Date[]>`${starts.map(formatLocal)}::timestamp[]`;
}

/** A local `timestamp` the query answered as text (`::text`), as a naive Date. */
export function localFromText(value: string): Date {
  return new Date(`${value.replace(' ', 'T')}Z`);
}
