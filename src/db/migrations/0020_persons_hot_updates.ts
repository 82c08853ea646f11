// A `$set` that leaves a person's email and name alone rewrites the row in place (a HOT update: no
// index entry is written). PostgreSQL can do so only when no indexed column changes, and the search
// indexes were on expressions over `properties`, so every change of any property wrote a new entry
// in each of the seven indexes. Email and name now are generated columns the indexes read; the
// table keeps a fifth of each page free for the row's next version. Adding the columns rewrites
// the table (every person, once).
import { sql, type Kysely } from 'kysely';

const statements = [
  sql`alter table persons
    add column email text generated always as (properties ->> 'email') stored,
    add column name text generated always as (properties ->> 'name') stored`,
  sql`drop index persons_email`,
  sql`drop index persons_email_trgm`,
  sql`drop index persons_name_trgm`,
  // The first 200 characters only, as before: a btree entry holds ~2.7 kB.
  sql`create index persons_email on persons (team_id, left(email, 200))`,
  sql`create index persons_email_trgm on persons using gin (email gin_trgm_ops)`,
  sql`create index persons_name_trgm on persons using gin (name gin_trgm_ops)`,
  sql`alter table persons set (fillfactor = 80)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}
