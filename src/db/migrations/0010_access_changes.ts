// Every herd process caches what access checks read (keys, users, memberships, projects,
// organizations). A committed change to those rows is announced on the channel `herd_access` to
// every process listening on the database, whoever made it (a server, the CLI, plain SQL): NOTIFY
// from a trigger belongs to the writing transaction, so it is delivered on commit, never before,
// and not at all on rollback. Payloads: `user:<id>` (that user's keys, user row or memberships)
// and `org:<uuid>` (that organization, or a project of it). Columns that decide nothing are left
// out: a key's `last_used_at`, a project's `person_count`.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create function herd_notify_access() returns trigger language plpgsql as $$
    declare
      payloads text[] := '{}';
      target jsonb;
      -- On Citus the trigger fires on a shard of the table, named <table>_<shard id>.
      source text := regexp_replace(tg_table_name, '_[0-9]+$', '');
    begin
      -- On Citus a write to these reference tables runs on every node's copy, and the workers'
      -- copies commit in two phases, which a NOTIFY forbids (PREPARE refuses it): only the
      -- coordinator's copy, written in the client's own transaction, announces the change.
      if to_regprocedure('pg_catalog.citus_is_coordinator()') is not null then
        if not citus_is_coordinator() then
          return null;
        end if;
      end if;
      -- Both sides of an update (NEW is null on delete, OLD on insert); read as jsonb so that one
      -- function serves every table.
      foreach target in array array[to_jsonb(old), to_jsonb(new)] loop
        continue when target is null;
        payloads := payloads || case source
          when 'users' then 'user:' || (target ->> 'id')
          when 'personal_api_keys' then 'user:' || (target ->> 'user_id')
          when 'organization_memberships' then 'user:' || (target ->> 'user_id')
          when 'teams' then 'org:' || (target ->> 'organization_id')
          else 'org:' || (target ->> 'id')
        end;
      end loop;
      -- Identical notifications of one transaction are delivered once.
      perform pg_notify('herd_access', p) from (select distinct unnest(payloads) as p) d;
      return null;
    end $$`.execute(db);

  const notify = sql`for each row execute function herd_notify_access()`;
  await sql`create trigger users_access_changed after update or delete on users ${notify}`.execute(db);
  await sql`create trigger personal_api_keys_access_changed after delete on personal_api_keys ${notify}`.execute(db);
  await sql`create trigger personal_api_keys_access_updated after update on personal_api_keys for each row
    when ((to_jsonb(old) - 'last_used_at') is distinct from (to_jsonb(new) - 'last_used_at'))
    execute function herd_notify_access()`.execute(db);
  await sql`create trigger organization_memberships_access_changed after insert or update or delete on organization_memberships ${notify}`.execute(
    db,
  );
  await sql`create trigger teams_access_changed after insert or delete on teams ${notify}`.execute(db);
  await sql`create trigger teams_access_updated after update on teams for each row
    when ((to_jsonb(old) - 'person_count') is distinct from (to_jsonb(new) - 'person_count'))
    execute function herd_notify_access()`.execute(db);
  await sql`create trigger organizations_access_changed after update or delete on organizations ${notify}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [trigger, table] of [
    ['users_access_changed', 'users'],
    ['personal_api_keys_access_changed', 'personal_api_keys'],
    ['personal_api_keys_access_updated', 'personal_api_keys'],
    ['organization_memberships_access_changed', 'organization_memberships'],
    ['teams_access_changed', 'teams'],
    ['teams_access_updated', 'teams'],
    ['organizations_access_changed', 'organizations'],
  ]) {
    await sql`drop trigger ${sql.id(trigger)} on ${sql.id(table)}`.execute(db);
  }
  await sql`drop function herd_notify_access()`.execute(db);
}
