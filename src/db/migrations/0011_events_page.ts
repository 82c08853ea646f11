// Paths read each person's pages (a pageview's `$current_url`, a screen's `$screen_name`) in time
// order. Taken from `properties`, that was a visit to the table for every pageview and a sort of a
// month of them; as a stored column carried by the person index, the paths views scan that index
// alone, already in order, as the funnels do. PostgreSQL computes the column on every insert, so
// every writer (capture, imports, tests' fixtures) fills it alike and the very next request sees it.
// A page longer than 400 characters is kept by its first 400 (an index entry holds ~2.7 kB; the
// event name beside it is at most 200 characters), so paths group such pages by that prefix.
// Adding a stored column rewrites the events table once: minutes on tens of millions of events.
import { sql, type Kysely } from 'kysely';

export const PAGE_LENGTH = 400;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table events add column page text generated always as (
    case event when '$pageview' then left(properties->>'$current_url', ${sql.lit(PAGE_LENGTH)})
      when '$screen' then left(properties->>'$screen_name', ${sql.lit(PAGE_LENGTH)}) end) stored`.execute(db);
  await sql`create index events_person_pages on events (team_id, person_id, timestamp, id) include (event, page)`.execute(
    db,
  );
  await sql`drop index events_person_order`.execute(db);
  await sql`alter index events_person_pages rename to events_person_order`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index events_person_events on events (team_id, person_id, timestamp, id) include (event)`.execute(
    db,
  );
  await sql`drop index events_person_order`.execute(db);
  await sql`alter index events_person_events rename to events_person_order`.execute(db);
  await sql`alter table events drop column page`.execute(db);
}
