// Persons at scale: indexes for the list filters, a maintained person count, and total (never
// failing) helpers the property-filter compiler uses so a bad regex or a non-numeric value in
// stored data can never abort a query.
import { sql, type Kysely } from 'kysely';

const statements = [
  sql`create extension if not exists pg_trgm`,

  // email filter (exact) and search (substring) on email and name.
  // The first 200 characters only: a btree entry holds ~2.7 kB and an e-mail property can be any string.
  sql`create index persons_email on persons (team_id, left(properties ->> 'email', 200))`,
  sql`create index persons_email_trgm on persons using gin ((properties ->> 'email') gin_trgm_ops)`,
  sql`create index persons_name_trgm on persons using gin ((properties ->> 'name') gin_trgm_ops)`,
  sql`create index persons_uuid on persons (uuid)`,
  sql`create index cohorts_created on cohorts (team_id, created_at desc, id desc)`,

  // teams.person_count plus the pending deltas is the exact number of persons, so an unfiltered count
  // reads one row. Statements append deltas instead of updating the team row: capture never waits on
  // (or deadlocks over) one hot counter row; readers fold the deltas in now and then.
  sql`create table person_count_deltas (
    team_id integer not null, -- no foreign key: a team's cascading delete of its persons fires the trigger
    id bigint generated always as identity,
    delta bigint not null,
    primary key (team_id, id)
  )`,
  sql`create function herd_persons_inserted() returns trigger language plpgsql as $$
    begin
      insert into person_count_deltas (team_id, delta) select team_id, count(*) from inserted_persons group by team_id;
      return null;
    end $$`,
  sql`create function herd_persons_deleted() returns trigger language plpgsql as $$
    begin
      insert into person_count_deltas (team_id, delta) select team_id, -count(*) from deleted_persons d
        where exists (select 1 from teams t where t.id = d.team_id) group by team_id;
      return null;
    end $$`,
  sql`create trigger persons_count_insert after insert on persons referencing new table as inserted_persons
    for each statement execute function herd_persons_inserted()`,
  sql`create trigger persons_count_delete after delete on persons referencing old table as deleted_persons
    for each statement execute function herd_persons_deleted()`,
  sql`update teams set person_count = (select count(*) from persons where persons.team_id = teams.id)`,

  // A pattern PostgreSQL rejects yields null (matches nothing) instead of an error. The validity
  // check takes the pattern alone, so with a known pattern the planner folds it to a constant and
  // rows pay only the plain `~`. It is parallel unsafe (the default) on purpose: its exception
  // block opens a subtransaction, which parallel mode refuses.
  sql`create function herd_regex_valid(pattern text) returns boolean language plpgsql immutable as $$
    begin
      perform '' ~ pattern;
      return true;
    exception when invalid_regular_expression then
      return false;
    end $$`,
  sql`create function herd_regex_match(value text, pattern text) returns boolean language sql immutable as $$
    select case when herd_regex_valid(pattern) then value ~ pattern end $$`,
  // A JSON number, or a string that reads as one; else null.
  sql`create function herd_jsonb_numeric(value jsonb) returns numeric language sql immutable parallel safe as $$
    select case
      when jsonb_typeof(value) = 'number' then (value #>> '{}')::numeric
      when jsonb_typeof(value) = 'string'
        and (value #>> '{}') ~ '^\\s*[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]{1,3})?\\s*$'
        then (value #>> '{}')::numeric
    end $$`,
  // A string property that reads as a date-time (UTC unless it says otherwise); else null.
  sql`create function herd_jsonb_timestamptz(value jsonb) returns timestamptz language plpgsql immutable as $$
    begin
      if jsonb_typeof(value) <> 'string' then return null; end if;
      if (value #>> '{}') ~ '(Z|z|[+-][0-9]{2}(:?[0-9]{2})?)$' then
        return (value #>> '{}')::timestamptz;
      end if;
      return (value #>> '{}')::timestamp at time zone 'UTC';
    exception when others then
      return null;
    end $$`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists persons_count_insert on persons`.execute(db);
  await sql`drop trigger if exists persons_count_delete on persons`.execute(db);
  await sql`drop table if exists person_count_deltas`.execute(db);
  await sql`drop function if exists herd_persons_inserted()`.execute(db);
  await sql`drop function if exists herd_persons_deleted()`.execute(db);
  await sql`drop function if exists herd_regex_match(text, text)`.execute(db);
  await sql`drop function if exists herd_regex_valid(text)`.execute(db);
  await sql`drop function if exists herd_jsonb_numeric(jsonb)`.execute(db);
  await sql`drop function if exists herd_jsonb_timestamptz(jsonb)`.execute(db);
  for (const index of ['persons_email', 'persons_email_trgm', 'persons_name_trgm', 'persons_uuid', 'cohorts_created']) {
    await sql`drop index if exists ${sql.id(index)}`.execute(db);
  }
}
