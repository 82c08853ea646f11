// Privacy requests (issue 28): a project's retention period, and the deletion queue widened from
// "the events of a deleted person" to every kind of event deletion the batch runs:
//   person          the events of a deleted person (as before)
//   person_events   the events of a person's distinct ids stored up to the request; the person stays
//   events          the events of a time range (optionally one event name, property filters)
//   scrub           the same selection, keeping the events but removing some property keys
//   retention       a project's events older than its retention period (queued by the batch itself)
// Tasks that name no person leave person_id and person_uuid null. A pending task may be cancelled.
import { sql, type Kysely } from 'kysely';

const statements = [
  sql`alter table teams add column data_retention_days integer check (data_retention_days >= 1)`,
  sql`alter table deletion_tasks alter column person_uuid drop not null`,
  sql`alter table deletion_tasks alter column person_id drop not null`,
  sql`alter table deletion_tasks
    add column events_until timestamptz,
    add column range_after timestamptz,
    add column range_before timestamptz,
    add column event text,
    add column properties jsonb,
    add column scrub_properties text[],
    add column events_scrubbed bigint not null default 0,
    add column started_at timestamptz,
    add column cancelled_at timestamptz`,
  sql`create index deletion_tasks_kind on deletion_tasks (team_id, deletion_type, created_at desc, id desc)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index deletion_tasks_kind`.execute(db);
  await sql`delete from deletion_tasks where person_id is null`.execute(db);
  await sql`alter table deletion_tasks
    drop column events_until, drop column range_after, drop column range_before, drop column event,
    drop column properties, drop column scrub_properties, drop column events_scrubbed,
    drop column started_at, drop column cancelled_at`.execute(db);
  await sql`alter table deletion_tasks alter column person_id set not null`.execute(db);
  await sql`alter table deletion_tasks alter column person_uuid set not null`.execute(db);
  await sql`alter table teams drop column data_retention_days`.execute(db);
}
