// Frozen in time: `events.person_key`, the column that keeps each person's events together — on
// Citus the distribution column of `events` (src/db/citus.ts), on every database the key of the
// per-person index. An event with a person has `person_key = person_id`; a personless one has a
// negative key derived from its distinct id (the same function capture applies), so the personless
// events of one distinct id lie together and a person's key never equals one (ids are positive).
// A check constraint holds that rule on every row. The keys (see docs/architecture.md, "Scaling
// out on Citus"):
// - primary key (team_id, person_key, id); an event is identified by (team_id, distinct_id, uuid,
//   person_key), whose prefix serves the retry check and the lookups by distinct id;
// - events_person_order (team_id, person_key, timestamp, id) including (event, page), and
//   events_event_time (team_id, event, timestamp) including (person_key, id): the views read the key.
//
// The table is copied, not altered, on every database: Citus cannot change the distribution column
// of a table with an identity column (`alter_distributed_table`: "cannot complete operation on a
// table with identity column", and it refuses to drop the identity), so on a cluster whose events
// are distributed (by distinct_id, before this migration) the new table is distributed by
// person_key as soon as it is created, and the copy is an `insert … select` that the workers
// repartition among themselves. On one server the copy, with indexes built afterwards, costs about
// what an update of every row would, without leaving every row's old version behind.
import { sql, type Kysely } from 'kysely';

/** The key of a personless event's distinct id: negative, 52 bits of PostgreSQL's text hash (exact as a JavaScript number). */
const personlessKey = (distinctId: string) => sql.raw(`(-1 - (hashtextextended(${distinctId}, 0) & 4503599627370495))`);

async function distributedEvents(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ distributed: boolean }>`select exists (
      select 1 from pg_extension where extname = 'citus'
    ) and to_regclass('pg_dist_partition') is not null as distributed`.execute(db);
  if (!rows[0]?.distributed) return false;
  const placed = await sql<{ n: number }>`select count(*)::int as n from pg_dist_partition
    where logicalrelid = 'events'::regclass and partmethod = 'h'`.execute(db);
  return placed.rows[0].n > 0;
}

export async function up(db: Kysely<any>): Promise<void> {
  const citus = await distributedEvents(db);
  if (citus) {
    // As src/db/citus.ts: a new table with a foreign key to the reference table `teams` would
    // otherwise become a "citus local" table, which Citus cannot distribute with an identity column.
    await sql`set local citus.enable_local_reference_table_foreign_keys = off`.execute(db);
    // The shards are created in this transaction: the copy then writes them over the same
    // connections (one per node), or its parallel connections wait on the uncommitted shards and
    // Citus cancels the transaction as a distributed deadlock (seen in the migration test).
    await sql`set local citus.multi_shard_modify_mode = 'sequential'`.execute(db);
  }
  await sql`create table events_0018 (
    team_id integer not null references teams (id) on delete cascade,
    id bigint generated always as identity,
    uuid uuid not null,
    event text not null,
    distinct_id text not null,
    person_id bigint,
    person_key bigint not null,
    properties jsonb not null default '{}'::jsonb,
    person_properties jsonb not null default '{}'::jsonb,
    timestamp timestamptz not null,
    created_at timestamptz not null default now(),
    page text generated always as (case event when '$pageview' then left(properties->>'$current_url', 400)
      when '$screen' then left(properties->>'$screen_name', 400) end) stored
  )`.execute(db);
  if (citus)
    await sql`select create_distributed_table('events_0018', 'person_key', colocate_with => 'none')`.execute(db);
  await sql`insert into events_0018 (team_id, id, uuid, event, distinct_id, person_id, person_key, properties,
      person_properties, timestamp, created_at)
    overriding system value
    select team_id, id, uuid, event, distinct_id, person_id, coalesce(person_id, ${personlessKey('distinct_id')}),
      properties, person_properties, timestamp, created_at
    from events`.execute(db);
  await sql`drop table events`.execute(db);
  await sql`alter table events_0018 rename to events`.execute(db);
  await sql`select setval(pg_get_serial_sequence('events', 'id'), coalesce((select max(id) from events), 0) + 1, false)`.execute(
    db,
  );
  for (const statement of [
    sql`alter table events add constraint events_pkey primary key (team_id, person_key, id)`,
    sql`alter table events add constraint events_team_id_distinct_id_uuid_key unique (team_id, distinct_id, uuid, person_key)`,
    sql`alter table events add constraint events_person_key check (person_key = coalesce(person_id, ${personlessKey('distinct_id')}))`,
    sql`create index events_event_time on events (team_id, event, timestamp) include (person_key, id)`,
    sql`create index events_person_order on events (team_id, person_key, timestamp, id) include (event, page)`,
    sql`create index events_list on events (team_id, timestamp, uuid)`,
  ])
    await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // One server only: on Citus the table stays distributed by person_key.
  for (const statement of [
    sql`drop index events_person_order`,
    sql`drop index events_event_time`,
    sql`alter table events drop constraint events_person_key`,
    sql`alter table events drop constraint events_team_id_distinct_id_uuid_key`,
    sql`alter table events drop constraint events_pkey`,
    sql`alter table events drop column person_key`,
    sql`alter table events add primary key (team_id, distinct_id, id)`,
    sql`alter table events add constraint events_team_id_distinct_id_uuid_key unique (team_id, distinct_id, uuid)`,
    sql`create index events_event_time on events (team_id, event, timestamp) include (person_id, id)`,
    sql`create index events_person_order on events (team_id, person_id, timestamp, id) include (event, page)`,
  ])
    await statement.execute(db);
}
