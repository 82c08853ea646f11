// Frozen in time: a static cohort's members (`cohort_people`) kept beside their events. On Citus the
// table is distributed by person_id, co-located with `events` (by person_key, migration 0018): a
// view filtered by a static cohort tests each event's key against the members on the event's own
// shard, where before every one of the 32 shard tasks read all the members as an intermediate
// result, made them unique and hashed them (a funnel by a cohort of 333 000 persons at 10M events:
// 0.49 s of a task's 1.38 s, once per person slice).
//
// The foreign keys to `cohorts` and `persons` cannot stay on a cluster (a foreign key between
// distributed tables must include both distribution columns, and those tables are by team_id):
// they are dropped on every database, so all three behave alike, and the code deletes a person's
// or a cohort's rows itself (persons.repository.ts, cohorts.repository.ts, the merge). The rows
// still go with their project: `team_id` references `teams` (a reference table on Citus).
//
// Copied, not altered, as 0018 did: on a cluster placed before this migration the new table is
// distributed as soon as it is created and the copy is an `insert … select` between workers.
import { sql, type Kysely } from 'kysely';

async function placedCohortPeople(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ distributed: boolean }>`select exists (
      select 1 from pg_extension where extname = 'citus'
    ) and to_regclass('pg_dist_partition') is not null as distributed`.execute(db);
  if (!rows[0]?.distributed) return false;
  const placed = await sql<{ n: number }>`select count(*)::int as n from pg_dist_partition
    where logicalrelid = 'cohort_people'::regclass and partmethod = 'h'`.execute(db);
  return placed.rows[0].n > 0;
}

export async function up(db: Kysely<any>): Promise<void> {
  const citus = await placedCohortPeople(db);
  if (citus) {
    // As 0018: a new table with a foreign key to the reference table `teams` would otherwise become
    // a "citus local" table; and the copy writes the shards created in this transaction over the
    // connections that created them.
    await sql`set local citus.enable_local_reference_table_foreign_keys = off`.execute(db);
    await sql`set local citus.multi_shard_modify_mode = 'sequential'`.execute(db);
  }
  await sql`create table cohort_people_0019 (
    team_id integer not null,
    cohort_id integer not null,
    person_id bigint not null
  )`.execute(db);
  if (citus)
    await sql`select create_distributed_table('cohort_people_0019', 'person_id', colocate_with => 'events')`.execute(
      db,
    );
  await sql`insert into cohort_people_0019 (team_id, cohort_id, person_id)
    select team_id, cohort_id, person_id from cohort_people`.execute(db);
  await sql`drop table cohort_people`.execute(db);
  await sql`alter table cohort_people_0019 rename to cohort_people`.execute(db);
  for (const statement of [
    sql`alter table cohort_people add constraint cohort_people_pkey primary key (team_id, cohort_id, person_id)`,
    sql`alter table cohort_people add constraint cohort_people_team_id_fkey
      foreign key (team_id) references teams (id) on delete cascade`,
    sql`create index cohort_people_person on cohort_people (team_id, person_id)`,
  ])
    await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // One server only: on Citus the table stays distributed by person_id.
  for (const statement of [
    sql`delete from cohort_people cp where not exists (
      select 1 from persons p where p.team_id = cp.team_id and p.id = cp.person_id)
      or not exists (select 1 from cohorts c where c.team_id = cp.team_id and c.id = cp.cohort_id)`,
    sql`alter table cohort_people drop constraint cohort_people_team_id_fkey`,
    sql`alter table cohort_people add foreign key (team_id, cohort_id) references cohorts (team_id, id) on delete cascade`,
    sql`alter table cohort_people add foreign key (team_id, person_id) references persons (team_id, id) on delete cascade`,
  ])
    await statement.execute(db);
}
