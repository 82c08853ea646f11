// The analytical views read events by (event, time) and need only the person and row id beside:
// the same index as before, now covering those, so trends, lifecycle and funnels scan the index
// alone (index-only) instead of visiting a heap page per event.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists events_event_time`.execute(db);
  await sql`create index events_event_time on events (team_id, event, timestamp) include (person_id, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists events_event_time`.execute(db);
  await sql`create index events_event_time on events (team_id, event, timestamp)`.execute(db);
}
