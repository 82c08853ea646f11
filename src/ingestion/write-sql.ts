// The statements that write a batch, as fragments: the common case runs them all as CTEs of one
// statement (write-batch.step.ts), the rare cases one by one.
import { sql, type RawBuilder } from 'kysely';
import { personKeySql } from '../db/person-key.ts';
import { survivorOf, type NewDistinctId, type PersonState } from './person-batch.ts';
import type { ResolvedEvent } from './resolve-person.step.ts';

// Rows per statement: bounds the size of one statement (and of its JSON parameter).
export const ROWS_PER_STATEMENT = 2000;

export function chunksOf<T>(items: T[], size = ROWS_PER_STATEMENT): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

/**
 * Rows travel as one JSON parameter expanded by jsonb_to_recordset, not as bound parameters per
 * column and row: PostgreSQL then parses and plans a statement of a few parameters, not hundreds.
 * As `jsonb`, not `json`: the text is parsed once, where json_to_recordset parses it and then
 * parses each `jsonb` column's text again (a batch of 100 events: 0.8 ms against 1.7, BENCHMARKS.md).
 */
export const rowsOf = (rows: object[]) => sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)`;

/** `insert into persons … returning id, uuid` (a uuid already taken is skipped); no rows when empty. */
export function insertPersonsSql(teamId: number, persons: PersonState[]): RawBuilder<unknown> {
  if (persons.length === 0) return sql`select null::bigint as id, null::uuid as uuid where false`;
  const rows = persons.map((person, ord) => ({
    ord,
    uuid: person.uuid,
    properties: person.properties,
    is_identified: person.isIdentified,
    version: person.version,
    created_at: person.createdAt,
  }));
  return sql`insert into persons (team_id, uuid, properties, is_identified, version, created_at)
    select ${teamId}::integer, v.uuid, v.properties, v.is_identified, v.version, v.created_at
    from ${rowsOf(rows)} as v (ord integer, uuid uuid, properties jsonb, is_identified boolean, version bigint, created_at timestamptz)
    order by v.ord
    on conflict (team_id, uuid) do nothing
    returning id, uuid`;
}

/**
 * `insert into person_distinct_ids … returning distinct_id, version`, in attach order. A person
 * inserted by the same statement is found by uuid in the CTE `new_persons`. An id held by a
 * placeholder (used by personless events, personless-ids.ts) is taken over, with a new row id (the
 * person lists it where it was attached, not where it was first seen) and its version raised to 1
 * as the platform marks such ids; an id of another person is skipped. So version > 0 in the result
 * tells the ids whose personless events are to be linked. The new row id is the one the insert drew
 * (`excluded.id`), not `default`: Citus refuses a volatile function (the identity's nextval) in the
 * DO UPDATE SET of an upsert on a distributed table.
 */
export function insertDistinctIdsSql(teamId: number, entries: NewDistinctId[]): RawBuilder<unknown> {
  if (entries.length === 0) return sql`select null::text as distinct_id, null::bigint as version where false`;
  const rows = entries.map((entry, ord) => {
    const survivor = survivorOf(entry.person);
    return { ord, distinct_id: entry.distinctId, person_id: survivor.id, person_uuid: survivor.uuid };
  });
  return sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select ${teamId}::integer, v.distinct_id, coalesce(v.person_id, n.id)
    from ${rowsOf(rows)} as v (ord integer, distinct_id text, person_id bigint, person_uuid uuid)
    left join new_persons n on n.uuid = v.person_uuid
    where coalesce(v.person_id, n.id) is not null
    order by v.ord
    on conflict (team_id, distinct_id) do update
      set person_id = excluded.person_id, version = person_distinct_ids.version + 1, id = excluded.id
      where person_distinct_ids.person_id is null
    returning distinct_id, version`;
}

export interface Attached {
  /** How many of the ids went in (fewer than asked: another person took one). */
  count: number;
  /** The ids that were placeholders: their personless events are to be linked. */
  placeholders: string[];
}

/** The select list reading the CTE `new_ids` (insertDistinctIdsSql) as `Attached` columns. */
export const attachedColumnsSql = sql`(select count(*) from new_ids)::integer as attached,
  (select coalesce(array_agg(distinct_id), '{}') from new_ids where version > 0) as placeholders`;

/** The new state of existing persons. The id list makes the planner fetch them by primary key. */
export function updatePersonsSql(teamId: number, persons: PersonState[]): RawBuilder<unknown> {
  const rows = persons.map((person) => ({
    id: person.id,
    properties: person.properties,
    is_identified: person.isIdentified,
    version: person.version,
    created_at: person.createdAt,
  }));
  return sql`update persons as p
    set properties = v.properties, is_identified = v.is_identified, version = v.version, created_at = v.created_at
    from ${rowsOf(rows)} as v (id bigint, properties jsonb, is_identified boolean, version bigint, created_at timestamptz)
    where p.team_id = ${teamId} and p.id = any(${persons.map((person) => person.id)}::bigint[]) and p.id = v.id`;
}

/**
 * The events in order. With `newPersons`, an event of a person inserted by the same statement takes
 * its id from the CTE `new_persons`. An event stored already was left out by the load step; one a
 * concurrent retry stored since is a unique violation, and the batch is retried (ingest.ts) and
 * then skips it. Each event's `person_key` is its person's id, or its distinct id's personless key
 * (src/db/person-key.ts): on Citus the shard it goes to. No `on conflict` clause: on Citus it turns the insert into a round of
 * intermediate results on every shard the batch touches (3× the time of a plain insert).
 */
export function insertEventsSql(teamId: number, events: ResolvedEvent[], newPersons: boolean): RawBuilder<unknown> {
  const rows = events.map(({ event, person, personProperties }, order) => {
    const survivor = person ? survivorOf(person) : null;
    return {
      ord: order,
      uuid: event.uuid,
      event: event.event,
      distinct_id: event.distinctId,
      person_id: survivor?.id ?? null,
      person_uuid: survivor?.uuid ?? null,
      properties: event.properties,
      person_properties: personProperties,
      timestamp: event.timestamp,
    };
  });
  const personId = newPersons ? sql<number | null>`coalesce(v.person_id, n.id)` : sql<number | null>`v.person_id`;
  const join = newPersons ? sql`left join new_persons n on n.uuid = v.person_uuid` : sql``;
  return sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
    select ${teamId}::integer, v.uuid, v.event, v.distinct_id, ${personId}, ${personKeySql(personId, sql.ref('v.distinct_id'))},
      v.properties, v.person_properties, v.timestamp
    from ${rowsOf(rows)}
      as v (ord integer, uuid uuid, event text, distinct_id text, person_id bigint, person_uuid uuid, properties jsonb, person_properties jsonb, timestamp timestamptz)
    ${join}
    order by v.ord`;
}
