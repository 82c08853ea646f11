// The per-person views (funnels, paths, stickiness, lifecycle, retention, the persons of a trends
// point) read each person's events in time order. The person index now carries that whole order
// (id breaks ties) and the event name, so those views scan it alone, already in order: no sort of
// a month of events, no visit to the table. It replaces events_person_time (same leading columns,
// so merges and per-person reads keep using it), leaving capture with as many indexes as before.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index events_person_order on events (team_id, person_id, timestamp, id) include (event)`.execute(db);
  await sql`drop index if exists events_person_time`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index events_person_time on events (team_id, person_id, timestamp)`.execute(db);
  await sql`drop index if exists events_person_order`.execute(db);
}
