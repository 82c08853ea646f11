// Read-only views over persons: the common values of a property, and a person's property timeline
// over the snapshots stored with its events.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { containsPattern } from '../../db/like-pattern.ts';
import type { JsonObject } from '../../db/schema.ts';

// As the platform: values are counted over the most recent persons only, so the view stays cheap.
const VALUES_SAMPLE = 100_000;
const VALUES_LIMIT = 20;

/** Top values of a property by number of persons; values of different JSON types stay apart. */
export async function topPropertyValues(
  db: Db,
  teamId: number,
  key: string,
  substring?: string,
): Promise<{ name: unknown; count: number }[]> {
  const narrow = substring ? sql`and (s.v #>> '{}') ilike ${containsPattern(substring)}::text` : sql``;
  const result = await sql<{ name: unknown; count: number }>`
    select s.v as name, count(*)::bigint as count
    from (
      select p.properties -> ${key}::text as v from persons p
      where p.team_id = ${teamId}::integer
      order by p.created_at desc, p.id desc
      limit ${VALUES_SAMPLE}::integer
    ) s
    where s.v is not null and jsonb_typeof(s.v) <> 'null' and s.v not in ('""'::jsonb, '[]'::jsonb, '{}'::jsonb) ${narrow}
    group by s.v
    order by count(*) desc, s.v::text collate "C"
    limit ${VALUES_LIMIT}::integer`.execute(db);
  return result.rows.map((row) => ({ name: row.name, count: Number(row.count) }));
}

export interface TimelinePoint {
  timestamp: string;
  properties: JsonObject;
  relevant_event_count: number;
}

export interface TimelineQuery {
  teamId: number;
  personId: number;
  from: Date;
  to: Date;
  eventNames: string[];
  crucialKeys: string[];
}

/** A point at the first event and wherever one of the crucial properties changes; each counts the events until the next. */
export async function propertiesTimeline(db: Db, query: TimelineQuery): Promise<TimelinePoint[]> {
  const state =
    query.crucialKeys.length > 0
      ? sql`jsonb_build_array(${sql.join(query.crucialKeys.map((key) => sql`e.person_properties -> ${key}::text`))})`
      : sql`'[]'::jsonb`;
  const names =
    query.eventNames.length > 0
      ? sql`and e.event in (${sql.join(query.eventNames.map((name) => sql`${name}::text`))})`
      : sql``;
  const result = await sql<{ timestamp: Date; properties: JsonObject; relevant_event_count: number }>`
    with ev as (
      select e.id, e.timestamp, e.person_properties, ${state} as state
      from events e
      where e.team_id = ${query.teamId}::integer and e.person_key = ${query.personId}::bigint
        and e.timestamp >= ${query.from.toISOString()}::timestamptz and e.timestamp <= ${query.to.toISOString()}::timestamptz
        ${names}
    ), marked as (
      select ev.*, case when lag(ev.state) over (order by ev.timestamp, ev.id) is distinct from ev.state then 1 else 0 end as starts
      from ev
    ), grouped as (
      select marked.*, sum(starts) over (order by marked.timestamp, marked.id) as grp from marked
    )
    select distinct on (grp) timestamp, person_properties as properties, count(*) over (partition by grp)::bigint as relevant_event_count
    from grouped
    order by grp, timestamp, id`.execute(db);
  return result.rows.map((row) => ({
    timestamp: row.timestamp.toISOString(),
    properties: row.properties,
    relevant_event_count: Number(row.relevant_event_count),
  }));
}

export async function firstEventTime(db: Db, teamId: number, personId: number): Promise<Date | null> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.min('timestamp').as('first'))
    .where('team_id', '=', teamId)
    .where('person_key', '=', personId)
    .executeTakeFirst();
  return (row?.first as Date | null | undefined) ?? null;
}
