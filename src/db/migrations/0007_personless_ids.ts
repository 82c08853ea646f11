// Personless events (`$process_person_profile: false`) are stored without a person; when their
// distinct id gets one later they count for it. A distinct id used that way is held by a
// placeholder row (person_id null) in person_distinct_ids, so its unique key orders the personless
// writer against the one who attaches the id (see src/ingestion/personless-ids.ts).
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table person_distinct_ids alter column person_id drop not null`.execute(db);
  // Events stored personless before this migration: linked to the person their id has now, and a
  // placeholder for the ids that still have none, as the capture path leaves them from now on.
  await sql`update events e set person_id = d.person_id
    from person_distinct_ids d
    where e.person_id is null and d.team_id = e.team_id and d.distinct_id = e.distinct_id`.execute(db);
  await sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select distinct e.team_id, e.distinct_id, null::bigint from events e where e.person_id is null
    on conflict (team_id, distinct_id) do nothing`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from person_distinct_ids where person_id is null`.execute(db);
  await sql`alter table person_distinct_ids alter column person_id set not null`.execute(db);
}
