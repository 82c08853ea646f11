// Frozen in time: what the schema needs to run on Citus as well, done the same way on every
// database so herd keeps one schema and one SQL dialect (src/db/citus.ts distributes it).
//
// - The person-count triggers no longer feed `insert … select` from their transition tables: on
//   Citus a trigger fires on a worker's shard, where an insert into a distributed table reading a
//   tuplestore cannot be planned ("could not find named tuplestore"), nor a join of it with a
//   reference table ("complex table expressions"). They loop over the per-team counts and insert
//   plain rows, which Citus routes to the co-located shard on the same worker.
// - An event is identified by (team_id, distinct_id, uuid), and keyed by (team_id, distinct_id, id):
//   Citus spreads one project's events over every worker by distinct_id, and a unique key there
//   must contain it. PostHog, too, treats an event as the same only with the same distinct id. The
//   key's prefix serves the (team_id, distinct_id) lookups, so that index goes.
import { sql, type Kysely } from 'kysely';

const statements = [
  sql`create or replace function herd_persons_inserted() returns trigger language plpgsql as $$
    declare
      counted record;
    begin
      for counted in select team_id, count(*) as n from inserted_persons group by team_id loop
        insert into person_count_deltas (team_id, delta) values (counted.team_id, counted.n);
      end loop;
      return null;
    end $$`,
  // A team being deleted takes its persons along: no delta for it, no row would ever fold it.
  sql`create or replace function herd_persons_deleted() returns trigger language plpgsql as $$
    declare
      counted record;
    begin
      for counted in select team_id, count(*) as n from deleted_persons group by team_id loop
        if exists (select 1 from teams t where t.id = counted.team_id) then
          insert into person_count_deltas (team_id, delta) values (counted.team_id, -counted.n);
        end if;
      end loop;
      return null;
    end $$`,
  sql`alter table events drop constraint events_pkey, add primary key (team_id, distinct_id, id)`,
  sql`alter table events drop constraint events_team_id_uuid_key,
    add constraint events_team_id_distinct_id_uuid_key unique (team_id, distinct_id, uuid)`,
  sql`drop index events_distinct_id`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index events_distinct_id on events (team_id, distinct_id)`.execute(db);
  await sql`alter table events drop constraint events_team_id_distinct_id_uuid_key, add constraint events_team_id_uuid_key unique (team_id, uuid)`.execute(db);
  await sql`alter table events drop constraint events_pkey, add primary key (team_id, id)`.execute(db);
  await sql`create or replace function herd_persons_inserted() returns trigger language plpgsql as $$
    begin
      insert into person_count_deltas (team_id, delta) select team_id, count(*) from inserted_persons group by team_id;
      return null;
    end $$`.execute(db);
  await sql`create or replace function herd_persons_deleted() returns trigger language plpgsql as $$
    begin
      insert into person_count_deltas (team_id, delta) select team_id, -count(*) from deleted_persons d
        where exists (select 1 from teams t where t.id = d.team_id) group by team_id;
      return null;
    end $$`.execute(db);
}
