// Events change person only by moving: `person_key` (src/db/person-key.ts) is the distribution
// column of events on Citus, which cannot be updated, so a merge or the link of personless events
// deletes the rows under their old key and inserts them under the new one, in one statement (a
// data-modifying CTE) per chunk of rows, on every database alike. Each delete names its source keys,
// so Citus routes it to the shards of those keys; the rows keep their id, uuid and timestamps, and the insert
// computes their `page` again. A concurrent reader sees the rows under the old key or the new one,
// never both: they move in the caller's transaction.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { personlessKeySql } from '../db/person-key.ts';

/** Inserts the rows of the CTE `moved` under `person` (an expression over `m` and the CTEs). */
function reinsertSql(person: RawBuilder<number>, join: RawBuilder<unknown> = sql``): RawBuilder<unknown> {
  return sql`insert into events (team_id, id, uuid, event, distinct_id, person_id, person_key, properties,
      person_properties, timestamp, created_at)
    overriding system value
    select m.team_id, m.id, m.uuid, m.event, m.distinct_id, ${person}, ${person}, m.properties,
      m.person_properties, m.timestamp, m.created_at
    from moved m ${join}`;
}

/**
 * The most events one move statement carries. A person's events move in statements of at most this
 * many (in id order, from where the last one stopped), so each statement stays well under capture's
 * time limit per statement (STATEMENT_TIMEOUT_MS, 5 s by default) however many events the person
 * has: one statement for all of them answered 504 for a person of 100 000 events on a loaded
 * 2-core box (bench/merge-move.bench.ts), rolled the batch back, and the merge never happened; a
 * chunk of 5 000 took 1.7 s on Citus there, and past 5 s at the load's peaks.
 */
export const MOVE_CHUNK = 1000;

/**
 * Moves the events under `key` that `filter` (a condition over `c`) selects to person `to`, in
 * statements of at most `chunk` rows: each names the key (one shard on Citus) and picks the next
 * ids past the last one moved, then deletes them as `id = any(array(…))`, a probe of the table's key
 * `(team_id, person_key, id)` per row (an `id in (subquery)` was planned as a hash join over a
 * sequential scan of all events, 1.4 s per chunk at 1M events). The delete also bounds `id` by the
 * chunk's first and last: a person's events written since the last ANALYZE are estimated at one
 * row, and a shard then read all 100 000 of them through `(team_id, person_key, timestamp)`
 * testing each against the chunk's 1 000 ids (630 ms a chunk, against 60 ms through the key);
 * bounded, either index reads only the chunk's range. Answers how many moved.
 */
async function moveInChunks(
  db: Db,
  teamId: number,
  key: RawBuilder<number>,
  filter: RawBuilder<unknown>,
  to: number,
  chunk: number,
): Promise<number> {
  let moved = 0;
  let after = 0;
  for (;;) {
    const ids = sql`select c.id from events c
          where c.team_id = ${teamId}::integer and c.person_key = ${key} and c.id > ${after}::bigint ${filter}
          order by c.id limit ${chunk}::integer`;
    const { rows } = await sql<{ id: number }>`with moved as (
        delete from events e
        where e.team_id = ${teamId}::integer and e.person_key = ${key}
          and e.id > ${after}::bigint and e.id <= (select max(n.id) from (${ids}) n)
          and e.id = any(array(${ids}))
        returning e.*
      )
      ${reinsertSql(sql<number>`${to}::bigint`)}
      returning id`.execute(db);
    moved += rows.length;
    if (rows.length < chunk) return moved;
    after = rows.reduce((last, row) => Math.max(last, Number(row.id)), after);
  }
}

/** The events of person `from` now belong to `to` (a merge); answers how many moved. */
export async function moveEventsOfPerson(
  db: Db,
  teamId: number,
  from: number,
  to: number,
  chunk = MOVE_CHUNK,
): Promise<number> {
  return moveInChunks(db, teamId, sql<number>`${from}::bigint`, sql``, to, chunk);
}

/**
 * The personless events of `distinctIds` move to the person each id has now (ids without one keep
 * theirs): the ids' persons are read first (on the project's shard of person_distinct_ids), then
 * each linked id's events move under its key (one shard on Citus); answers how many moved.
 */
export async function movePersonlessEvents(
  db: Db,
  teamId: number,
  distinctIds: string[],
  chunk = MOVE_CHUNK,
): Promise<number> {
  if (distinctIds.length === 0) return 0;
  const { rows: linked } = await sql<{ distinct_id: string; person_id: number }>`select d.distinct_id, d.person_id
    from person_distinct_ids d
    where d.team_id = ${teamId}::integer and d.distinct_id = any(${distinctIds}::text[]) and d.person_id is not null
    order by d.distinct_id`.execute(db);
  let moved = 0;
  for (const { distinct_id: distinctId, person_id: personId } of linked) {
    const id = sql<string>`${distinctId}::text`;
    moved += await moveInChunks(
      db,
      teamId,
      personlessKeySql(id),
      sql`and c.distinct_id = ${id} and c.person_id is null`,
      Number(personId),
      chunk,
    );
  }
  return moved;
}

/** The key of each id as a list of constants, so Citus prunes the delete to their shards. */
const personlessKeysSql = (distinctIds: string[]) =>
  sql.join(distinctIds.map((id) => personlessKeySql(sql<string>`${id}::text`)));

/** Events of the batch stored without a person (its insert lost a uuid race) move to `personId`. */
export async function moveBatchEvents(
  db: Db,
  teamId: number,
  events: Array<{ distinctId: string; uuid: string }>,
  personId: number,
): Promise<void> {
  if (events.length === 0) return;
  const distinctIds = [...new Set(events.map((event) => event.distinctId))];
  await sql`with moved as (
      delete from events e
      where e.team_id = ${teamId}::integer and e.person_key in (${personlessKeysSql(distinctIds)})
        and e.distinct_id = any(${distinctIds}::text[]) and e.uuid = any(${events.map((event) => event.uuid)}::uuid[])
        and e.person_id is null
      returning e.*
    )
    ${reinsertSql(sql<number>`${personId}::bigint`)}`.execute(db);
}
