// Days as bits: the insights that need only which days a person was active (actives per day, the
// daily lifecycle) keep one bigint per person, bit i set for the i-th day after an origin, and count
// a day's persons as the sum of that day's bit over the masks.
import { sql, type RawBuilder } from 'kysely';
import { formatLocal, localSql } from '../date-range.ts';

const DAY_MS = 86_400_000;

/** Whole days from `origin` to `day`, both local midnights. */
export function daysFrom(origin: Date, day: Date): number {
  return Math.round((day.getTime() - origin.getTime()) / DAY_MS);
}

/** The bit of a timestamptz expression: its local calendar day's distance from `origin`. */
export function dayBitSql(timestamp: RawBuilder<unknown>, timezone: string, origin: Date): RawBuilder<number> {
  return sql<number>`((${localSql(timestamp, timezone)})::date - ${formatLocal(origin).slice(0, 10)}::date)`;
}

/** How many of the masks (a column of bigints) hold `bit`. */
export function bitSumSql(mask: RawBuilder<unknown>, bit: number): RawBuilder<number> {
  return sql<number>`sum(((${mask} >> ${sql.lit(bit)}) & 1)::int)`;
}
