// Frozen in time: the definitions of a project's data (event names, event and person property keys
// with their types, which keys each event carries), kept by capture per batch (src/ingestion/
// definitions.ts), and saved insights. Every table is keyed by team_id first: on Citus they are
// distributed by it, co-located with persons (src/db/citus.ts).
//
// The backfill from data already stored is bounded, as a migration runs before the server serves:
// - event names: one pass over the (team_id, event, timestamp) index of events (grouped; minutes on
//   hundreds of millions of events);
// - event property keys and their types: the newest 1 000 events of each event name;
// - person property keys: the newest 10 000 persons of each project.
// A key seen only on older rows gets its definition when capture next sees it.
// `insights.id` is a bigserial, not an identity: on a Citus deployment distributed before this
// migration, each new table (its foreign key to the reference table `teams`) first becomes a
// "citus local" table, and Citus distributes no such table with an identity column.
import { sql, type Kysely, type RawBuilder } from 'kysely';

const EVENTS_PER_NAME = 1000;
const PERSONS_PER_PROJECT = 10_000;
/** Longer names and keys are no definitions (as definitions-seen.ts's MAX_DEFINITION_NAME). */
const MAX_NAME = 400;

const statements = [
  sql`create table event_definitions (
    team_id integer not null references teams (id) on delete cascade,
    id uuid not null default gen_random_uuid(),
    name text not null,
    created_at timestamptz not null,
    last_seen_at timestamptz not null,
    primary key (team_id, id),
    unique (team_id, name)
  )`,
  sql`create index event_definitions_last_seen on event_definitions (team_id, last_seen_at desc, name)`,
  // kind: 1 an event property, 2 a person property (the platform's `type`).
  sql`create table property_definitions (
    team_id integer not null references teams (id) on delete cascade,
    id uuid not null default gen_random_uuid(),
    kind smallint not null check (kind in (1, 2)),
    name text not null,
    property_type text check (property_type in ('String', 'Numeric', 'DateTime', 'Boolean')),
    primary key (team_id, id),
    unique (team_id, kind, name)
  )`,
  sql`create table event_properties (
    team_id integer not null references teams (id) on delete cascade,
    event text not null,
    property text not null,
    primary key (team_id, event, property)
  )`,
  sql`create index event_properties_property on event_properties (team_id, property)`,
  sql`create table insights (
    team_id integer not null references teams (id) on delete cascade,
    id bigserial,
    short_id text not null,
    name text not null default '',
    description text not null default '',
    filters jsonb not null default '{}',
    created_by_id bigint references users (id) on delete set null,
    created_at timestamptz not null,
    last_modified_by_id bigint references users (id) on delete set null,
    last_modified_at timestamptz not null,
    primary key (team_id, id),
    unique (team_id, short_id)
  )`,
  sql`create index insights_modified on insights (team_id, last_modified_at desc, id desc)`,
];

/** A JSON value's property type, as src/ingestion/definitions.ts infers it (a copy: migrations never import app code). */
const typeOf = (value: RawBuilder<unknown>) => sql`case jsonb_typeof(${value})
  when 'number' then 'Numeric' when 'boolean' then 'Boolean'
  when 'string' then case
    when lower(${value} #>> '{}') in ('true', 'false') then 'Boolean'
    when (${value} #>> '{}') ~ '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}(:?\\d{2})?)?)?$' then 'DateTime'
    else 'String' end end`;

async function backfill(db: Kysely<any>): Promise<void> {
  await sql`insert into event_definitions (team_id, name, created_at, last_seen_at)
    select team_id, event, min(timestamp), max(timestamp) from events
    where length(event) <= ${sql.lit(MAX_NAME)} group by team_id, event`.execute(db);
  const names = await sql<{ team_id: number; name: string }>`select team_id, name from event_definitions`.execute(db);
  // One event name at a time: a query over events of one project (Citus plans it on every worker).
  for (const { team_id: teamId, name } of names.rows) {
    const sample = sql`(select properties from events where team_id = ${teamId} and event = ${name}
      order by timestamp desc limit ${sql.lit(EVENTS_PER_NAME)}) e cross join lateral jsonb_each(e.properties) p`;
    await sql`insert into event_properties (team_id, event, property)
      select distinct ${teamId}::integer, ${name}::text, p.key from ${sample}
      where length(p.key) <= ${sql.lit(MAX_NAME)}`.execute(db);
    await sql`insert into property_definitions (team_id, kind, name, property_type)
      select ${teamId}::integer, 1, p.key, (array_agg(${typeOf(sql`p.value`)}) filter (where jsonb_typeof(p.value) <> 'null'))[1]
      from ${sample} where length(p.key) <= ${sql.lit(MAX_NAME)} group by p.key
      on conflict (team_id, kind, name) do update set property_type = excluded.property_type
        where property_definitions.property_type is null`.execute(db);
  }
  const teams = await sql<{ id: number }>`select id from teams`.execute(db);
  for (const { id: teamId } of teams.rows) {
    await sql`insert into property_definitions (team_id, kind, name, property_type)
      select ${teamId}::integer, 2, p.key, (array_agg(${typeOf(sql`p.value`)}) filter (where jsonb_typeof(p.value) <> 'null'))[1]
      from (select properties from persons where team_id = ${teamId} order by created_at desc, id desc
        limit ${sql.lit(PERSONS_PER_PROJECT)}) e cross join lateral jsonb_each(e.properties) p
      where length(p.key) <= ${sql.lit(MAX_NAME)} group by p.key`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
  await backfill(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['insights', 'event_properties', 'property_definitions', 'event_definitions']) {
    await sql`drop table ${sql.id(table)}`.execute(db);
  }
}
