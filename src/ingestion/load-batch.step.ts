// Step of the pipeline before any event is applied: in one statement, find which events are
// already stored (SDK retries) and lock, in one stable order, every person the batch's distinct
// ids point to with those distinct-id rows, so concurrent batches neither deadlock nor lose updates.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { runPrepared } from '../db/prepared.ts';
import type { LoadedPerson } from './person-batch.ts';
import { holdPersonlessIdsSql, linkedSinceSnapshotSql } from './personless-ids.ts';
import { rowsOf } from './write-sql.ts';

/** Thrown when another transaction changed what this one read; the whole batch is retried. */
export class RetryableConflict extends Error {
  readonly code = '40001';
}

/** An event is the same event only with the same distinct id (the key of `events`, migration 0009). */
export const storedKey = (uuid: string, distinctId: string) => `${uuid} ${distinctId}`;

export interface LoadedBatch {
  /** storedKey of each event of the batch already stored. */
  stored: Set<string>;
  persons: LoadedPerson[];
  /** Each distinct id looked up → its person's id, or null when it has none. */
  distinctIds: Map<string, number | null>;
}

/** An event whose uuid the client gave: it may be stored already (an SDK retry). */
export interface StoredCandidate {
  uuid: string;
  distinctId: string;
}

interface Row extends LoadedPerson {
  stored: string[];
  linked: number;
  distinct_id: string | null;
}

/**
 * `stored`: the keys (uuid and distinct id) of the given events already stored, found by their key
 * (project, distinct id, uuid) one index probe per event whatever the statistics say. The project
 * comes with each key, not as a constant: a constant project whose statistics are older than its
 * events (a new one, before autovacuum's ANALYZE) had all its events read and hashed for every
 * batch, and a condition on the distinct ids read every event of a heavy visitor. The LIMIT tells
 * the planner how many keys there are (a JSON function counts as 100 rows).
 */
export function storedEventsSql(teamId: number, given: StoredCandidate[]): RawBuilder<unknown> {
  const keys = given.map((event) => ({ team_id: teamId, distinct_id: event.distinctId, uuid: event.uuid }));
  if (keys.length === 0) return sql`select '{}'::text[] as stored`;
  return sql`
    select coalesce(array_agg(e.uuid::text || ' ' || e.distinct_id), '{}') as stored
    from (select * from ${rowsOf(keys)} as j (team_id integer, distinct_id text, uuid uuid) limit ${keys.length}) k
    join events e on e.team_id = k.team_id and e.distinct_id = k.distinct_id and e.uuid = k.uuid`;
}

/**
 * A row moved or deleted by a transaction we waited for drops out of the result, so its id reads
 * as new; creating it then conflicts (RetryableConflict) and the batch is retried. Each person is
 * locked before its distinct-id rows, the order a person delete (cascading to them) takes too.
 * The ids of personless events are held too (personless-ids.ts), and the stored events found
 * (storedEventsSql).
 */
export async function loadBatch(
  db: Db,
  teamId: number,
  given: StoredCandidate[],
  distinctIds: string[],
  personlessIds: string[] = [],
): Promise<LoadedBatch> {
  const load = sql<Row>`
    with locked as (
      select d.distinct_id, p.id, p.uuid, p.properties, p.is_identified, p.created_at, p.version
      from persons p
      join person_distinct_ids d on d.team_id = p.team_id and d.person_id = p.id
      where d.team_id = ${teamId} and d.distinct_id = any(${distinctIds}::text[])
      order by p.id, d.distinct_id
      for update of p, d
    ), held as (${holdPersonlessIdsSql(teamId, personlessIds)})
    select s.stored, ${linkedSinceSnapshotSql} as linked,
      x.distinct_id, x.id, x.uuid, x.properties, x.is_identified, x.created_at, x.version
    from (${storedEventsSql(teamId, given)}) s
    left join lateral (select * from locked) x on true`.compile(db);
  // A named statement (prepared.ts), as the write is, unless it looks up stored events: their
  // lookup's plan is left to each run's own values (storedEventsSql), not to a cached generic plan.
  const rows = given.length === 0 ? await runPrepared(db, load) : (await db.executeQuery(load)).rows;
  // An id of a personless event got a person after our snapshot: start over and see it.
  if ((rows[0]?.linked ?? 0) > 0)
    throw new RetryableConflict('a distinct id of personless events got a person concurrently');
  const result = new Map<string, number | null>(distinctIds.map((id) => [id, null]));
  const persons = new Map<number, LoadedPerson>();
  for (const row of rows) {
    if (row.distinct_id === null) continue;
    result.set(row.distinct_id, row.id);
    if (!persons.has(row.id)) {
      const { id, uuid, properties, is_identified, created_at, version } = row;
      persons.set(id, { id, uuid, properties, is_identified, created_at, version });
    }
  }
  return { stored: new Set(rows[0]?.stored ?? []), persons: [...persons.values()], distinctIds: result };
}
