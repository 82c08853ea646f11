// Limits that hold across every process on the database (herd's workers and separate servers):
// `limit_windows` counts a key's requests per budget and fixed window, granted to the processes in
// small blocks; `heavy_slot_leases` holds one row per heavy-request slot in use, by a process, until
// it is released or its lease lapses (a crashed holder's slot frees itself). Both are keyed by a
// subject (`key:<id>`, `project:<id>`), on Citus the distribution column, so every statement on them
// goes to one shard. Rows past their expiry are deleted by every server's sweep.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table limit_windows (
    subject text not null,
    budget text not null,
    window_start timestamptz not null,
    hits integer not null,
    expires_at timestamptz not null,
    primary key (subject, budget, window_start)
  )`.execute(db);
  await sql`create index limit_windows_expiry on limit_windows (expires_at)`.execute(db);
  await sql`create table heavy_slot_leases (
    subject text not null,
    slot integer not null,
    holder text not null,
    taken_at timestamptz not null,
    expires_at timestamptz not null,
    primary key (subject, slot)
  )`.execute(db);
  await sql`create index heavy_slot_leases_expiry on heavy_slot_leases (expires_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table heavy_slot_leases`.execute(db);
  await sql`drop table limit_windows`.execute(db);
}
