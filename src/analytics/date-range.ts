// Date ranges and interval buckets in the project's timezone. Local wall-clock times are carried as
// "naive" Dates whose UTC fields hold the local values; SQL turns them back into instants with
// `::timestamp at time zone <tz>`, so daylight-saving shifts are PostgreSQL's business.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';

export type Interval = 'hour' | 'day' | 'week' | 'month';
export const INTERVALS: Interval[] = ['hour', 'day', 'week', 'month'];

/** A range of local times: `from` inclusive (null = unbounded), `to` exclusive. */
export interface LocalRange {
  from: Date | null;
  to: Date;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The wall-clock time of an instant in a timezone, as a naive Date. */
export function localTime(instant: Date, timezone: string): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return new Date(
    Date.UTC(
      part('year'),
      part('month') - 1,
      part('day'),
      part('hour'),
      part('minute'),
      part('second'),
      instant.getUTCMilliseconds(),
    ),
  );
}

export function addInterval(date: Date, interval: Interval, count: number): Date {
  const d = new Date(date);
  if (interval === 'hour') d.setTime(d.getTime() + count * HOUR);
  else if (interval === 'day') d.setTime(d.getTime() + count * DAY);
  else if (interval === 'week') d.setTime(d.getTime() + count * 7 * DAY);
  else {
    // Calendar months keep the day where the target month has it, else its last day (Jan 31 + 1 month = Feb 29).
    const day = d.getUTCDate();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + count);
    d.setUTCDate(Math.min(day, new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate()));
  }
  return d;
}

/** The start of the bucket holding a local time; weeks start on Sunday. */
export function truncate(date: Date, interval: Interval): Date {
  const d = new Date(date);
  d.setUTCMinutes(0, 0, 0);
  if (interval === 'hour') return d;
  d.setUTCHours(0);
  if (interval === 'day') return d;
  if (interval === 'week') return new Date(d.getTime() - d.getUTCDay() * DAY);
  d.setUTCDate(1);
  return d;
}

// The count may be left out before Start/End: `mStart` is the start of this month.
const RELATIVE = /^-?(?:(\d{1,6})([hdwmqy])|(\d{0,6})([hdwmqy])(Start|End))$/;
const ABSOLUTE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-][01]\d:?[0-5]\d)?$/;
// Parsed dates stay this far inside PostgreSQL's timestamp range, leaving room for the views' shifts
// (up to a thousand periods back for retention, a period either way elsewhere).
const MIN_YEAR = 100;
const MAX_YEAR = 9900;

export interface ParsedDate {
  value: Date;
  /** Relative values in hours floor to the hour, not the day. */
  hourly: boolean;
  /** A bare date (no time part). */
  dateOnly: boolean;
}

/** Parses an absolute or relative (`-7d`, `-1mStart`) date into local wall-clock time. */
export function parseDate(raw: string, timezone: string, now: Date, attr: string): ParsedDate {
  const relative = RELATIVE.exec(raw);
  if (relative) {
    const count = Number(relative[1] ?? relative[3] ?? 0);
    const unit = relative[2] ?? relative[4];
    const position = relative[5];
    const local = localTime(now, timezone);
    let value: Date;
    if (unit === 'h') value = new Date(local.getTime() - count * HOUR);
    else if (unit === 'd') value = new Date(local.getTime() - count * DAY);
    else if (unit === 'w') value = new Date(local.getTime() - count * 7 * DAY);
    else value = addInterval(local, 'month', -count * (unit === 'y' ? 12 : unit === 'q' ? 3 : 1));
    if (position) {
      const period: Interval = unit === 'h' ? 'hour' : unit === 'd' ? 'day' : unit === 'w' ? 'week' : 'month';
      value = truncate(value, period);
      // yStart/yEnd are the bounds of the year.
      if (unit === 'y') value.setUTCMonth(0);
      if (position === 'End') value = new Date(addInterval(value, period, unit === 'y' ? 12 : 1).getTime() - 1);
    }
    if (!inYearRange(value)) throw validationError(`Unable to parse the date "${raw}".`, attr);
    return { value, hourly: unit === 'h', dateOnly: false };
  }
  const absolute = ABSOLUTE.exec(raw.trim());
  if (!absolute) throw validationError(`Unable to parse the date "${raw}".`, attr);
  const [, y, mo, d, h, mi, s, frac, zone] = absolute;
  const ms = frac ? Number(frac.padEnd(3, '0').slice(0, 3)) : 0;
  let value = new Date(
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), ms),
  );
  const valid =
    value.getUTCMonth() === Number(mo) - 1 &&
    value.getUTCDate() === Number(d) &&
    Number(h ?? 0) < 24 &&
    Number(mi ?? 0) < 60 &&
    Number(s ?? 0) < 60;
  if (!valid || Number.isNaN(value.getTime()) || Number(y) < MIN_YEAR)
    throw validationError(`Unable to parse the date "${raw}".`, attr);
  if (zone) {
    // An explicit offset names an instant; the range is still reasoned about in the project's time.
    const offset =
      zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(-2)));
    value = localTime(new Date(value.getTime() - offset * 60_000), timezone);
  }
  if (!inYearRange(value)) throw validationError(`Unable to parse the date "${raw}".`, attr);
  return { value, hourly: false, dateOnly: h === undefined };
}

function inYearRange(value: Date): boolean {
  const year = value.getUTCFullYear();
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

export interface RangeOptions {
  dateFrom?: string;
  dateTo?: string;
  interval: Interval;
  explicit: boolean;
  timezone: string;
  now: Date;
  /** The default lower bound when date_from is absent; `-7d` for every view. */
  defaultFrom?: string;
}

/**
 * PostHog's filter dates: date_from defaults to -7d and floors to the start of its day (or hour);
 * date_to defaults to now and is raised to the end of its day (or hour); `all` means unbounded.
 */
export function resolveRange(options: RangeOptions): LocalRange {
  const { interval, timezone, now, explicit } = options;
  const fromRaw = options.dateFrom ?? options.defaultFrom ?? '-7d';
  let from: Date | null = null;
  if (fromRaw !== 'all') {
    const parsed = parseDate(fromRaw, timezone, now, 'date_from');
    from = explicit ? parsed.value : truncate(parsed.value, interval === 'hour' || parsed.hourly ? 'hour' : 'day');
  }
  let to: Date;
  if (options.dateTo === undefined) {
    const local = localTime(now, timezone);
    to = explicit
      ? new Date(local.getTime() + 1)
      : addInterval(truncate(local, interval === 'hour' ? 'hour' : 'day'), interval === 'hour' ? 'hour' : 'day', 1);
  } else {
    const parsed = parseDate(options.dateTo, timezone, now, 'date_to');
    const period = interval === 'hour' || parsed.hourly ? 'hour' : 'day';
    to = explicit ? new Date(parsed.value.getTime() + 1) : addInterval(truncate(parsed.value, period), period, 1);
  }
  return { from, to };
}

/** A naive local Date as the SQL literal text of a `timestamp`. */
export function formatLocal(date: Date): string {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

/** The instant of a local wall-clock time in the project's timezone. */
export function instantSql(date: Date, timezone: string): RawBuilder<Date> {
  return sql<Date>`(${formatLocal(date)}::timestamp at time zone ${timezone})`;
}

/** The local wall-clock time of a timestamptz expression. */
export function localSql(expression: RawBuilder<unknown>, timezone: string): RawBuilder<Date> {
  return sql<Date>`(${expression} at time zone ${timezone})`;
}

/** The bucket start of a local timestamp expression; weeks start on Sunday. */
export function bucketSql(local: RawBuilder<unknown>, interval: Interval): RawBuilder<Date> {
  if (interval === 'week')
    return sql<Date>`(date_trunc('day', ${local}) - extract(dow from ${local})::int * interval '1 day')`;
  return sql<Date>`date_trunc(${interval}, ${local})`;
}

/** One interval as an SQL interval value. */
export function intervalSql(interval: Interval, count = 1): RawBuilder<unknown> {
  return sql`(${count}::int * ${`1 ${interval}`}::interval)`;
}

/** A range as SQL conditions on a timestamptz column expression. */
export function rangeSql(column: RawBuilder<unknown>, range: LocalRange, timezone: string): RawBuilder<unknown> {
  const upper = sql`${column} < ${instantSql(range.to, timezone)}`;
  return range.from ? sql`(${column} >= ${instantSql(range.from, timezone)} and ${upper})` : upper;
}
