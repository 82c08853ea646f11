// Frozen in time: the events list (`GET /events/`) pages newest first by keyset on (timestamp,
// uuid). Without a filter no index held the project's events in time order, so every page sorted
// all of them; this one makes a page an index range read, as cheap 100 pages deep as at the top.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index events_list on events (team_id, timestamp, uuid)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index events_list`.execute(db);
}
