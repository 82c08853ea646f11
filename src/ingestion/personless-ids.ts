// Personless events (`$process_person_profile: false`) of a distinct id with no person are stored
// with person_id null; once the id gets a person they count for it. The id's row in
// person_distinct_ids is the one place both writers meet: a personless writer holds a placeholder
// row (person_id null) until it commits, and whoever attaches the id turns that placeholder into
// the mapping, so it waits for the writer and then links the events in a statement of its own,
// whose snapshot includes them. Why this design: docs/architecture.md, "Anonymous events".
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { movePersonlessEvents } from './move-events.ts';

/**
 * A CTE of the load statement, after the CTE `locked` (persons and their distinct-id rows, locked
 * for update): for each id of a personless event that `locked` does not show with a person, insert
 * a placeholder, or lock the row that is already there — an ON CONFLICT DO UPDATE locks the
 * conflicting row (after waiting for its writer if uncommitted) before it reads its WHERE. Either
 * way this transaction holds the id's row until it commits, so an attach of the id waits for it.
 * The WHERE is true only when the row has a person by now (attached by a transaction that committed
 * after our snapshot): that row is rewritten unchanged and returned, and the batch starts over
 * (see `linkedSinceSnapshotSql`); a placeholder is locked and left alone.
 * Reading `locked` to its end before the first insert puts every person lock before the
 * placeholder locks, the order the writers of a batch take them in too. Ids in one sorted order,
 * so two loads never wait on each other in a cycle.
 */
export function holdPersonlessIdsSql(teamId: number, personlessIds: string[]): RawBuilder<unknown> {
  if (personlessIds.length === 0) return sql`select null::bigint as person_id where false`;
  return sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select ${teamId}::integer, u.id, null::bigint
    from unnest(${personlessIds}::text[]) as u (id)
    where not exists (select 1 from locked l where l.distinct_id = u.id)
    order by u.id
    on conflict (team_id, distinct_id) do update set person_id = person_distinct_ids.person_id
      where person_distinct_ids.person_id is not null
    returning person_id`;
}

/** Over the CTE `held` (holdPersonlessIdsSql): how many of the ids turned out to have a person. */
export const linkedSinceSnapshotSql = sql<number>`(select count(*) from held where person_id is not null)::integer`;

/**
 * Events stored without a person under ids that were placeholders and now have one: linked to
 * it, by moving them to its key (move-events.ts). Run after the statement that attached the ids, so
 * it sees what the personless writers the attach waited for committed.
 */
export async function linkPersonlessEvents(db: Db, teamId: number, distinctIds: string[]): Promise<void> {
  await movePersonlessEvents(db, teamId, distinctIds);
}
