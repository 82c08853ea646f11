// The key that keeps each person's events together (`events.person_key`, migration 0018): on Citus
// the distribution column of events, everywhere the key of the per-person index. An event with a
// person has its person's id; a personless one a negative key of its distinct id, so that the
// personless events of one id lie together and never share a person's key (ids are positive).
// `person_key > 0` therefore reads "the event has a person", and then equals its person_id.
// The check constraint `events_person_key` holds every row to this rule.
import { sql, type Expression, type RawBuilder } from 'kysely';

/**
 * A personless event's key: 52 bits of PostgreSQL's 64-bit hash of the distinct id, made negative.
 * int8 columns are read as JavaScript numbers (the deletion batch's cursor, the keys it deletes by):
 * a key past 2^53 would be rounded and select other rows, so the key stays within [-2^52, -1].
 */
export function personlessKeySql(distinctId: Expression<string> | RawBuilder<string>): RawBuilder<number> {
  return sql<number>`(-1 - (hashtextextended(${distinctId}, 0) & ${sql.raw(PERSONLESS_KEY_MASK)}))`;
}

/** The low 52 bits, as SQL text: what personlessKeySql keeps of the hash. */
export const PERSONLESS_KEY_MASK = '4503599627370495';

/** The key of an event of `personId` (null: personless) and `distinctId`. */
export function personKeySql(
  personId: Expression<number | null> | RawBuilder<number | null>,
  distinctId: Expression<string> | RawBuilder<string>,
): RawBuilder<number> {
  return sql<number>`coalesce(${personId}, ${personlessKeySql(distinctId)})`;
}

/** The key of an event of `personId` (null: personless) under `distinctId`, as bound values. */
export function eventKey(personId: number | null, distinctId: string): RawBuilder<number> {
  return personKeySql(sql<number | null>`${personId}::bigint`, sql<string>`${distinctId}::text`);
}
