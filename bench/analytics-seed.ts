// The analytics benches' data: N events over a month in arrival order, one person per 10 events
// (unless told), written by bulk SQL generators, then vacuumed and analyzed.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../src/db/database.ts';

export const SEED_DAYS = 30;
export const SEED_END = new Date('2024-02-01T00:00:00Z');

/** The name of the seeded static cohort (seededCohortId finds it). */
const SEED_COHORT = 'Every third person';

/** The id of the static cohort seedAnalytics made in the project. */
export async function seededCohortId(db: DatabaseHandle['db'], teamId: number): Promise<number> {
  const found = await sql<{
    id: number;
  }>`select id from cohorts where team_id = ${teamId} and name = ${SEED_COHORT}`.execute(db);
  return Number(found.rows[0].id);
}

/** Seeds a project's persons (a static cohort of every third one) and events; answers the milliseconds it took. */
export async function seedAnalytics(
  handle: DatabaseHandle,
  teamId: number,
  events: number,
  persons: number,
): Promise<number> {
  const { db } = handle;
  const started = performance.now();
  await sql`insert into persons (team_id, uuid, properties, created_at)
    select ${teamId}, gen_random_uuid(), jsonb_build_object('email', 'user' || g || '@example.com', 'plan', case when g % 5 = 0 then 'pro' else 'free' end),
      ${SEED_END}::timestamptz - ${SEED_DAYS + 10} * interval '1 day' + (g % ${SEED_DAYS + 10}) * interval '1 day'
    from generate_series(1, ${persons}) g`.execute(db);
  await sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
    select team_id, 'user-' || id, id from persons where team_id = ${teamId}`.execute(db);
  const base = await sql<{ min: number }>`select min(id) as min from persons where team_id = ${teamId}`.execute(db);
  const first = Number(base.rows[0].min);
  // A static cohort of every third person, for the views broken down or narrowed by a cohort.
  await sql`insert into cohorts (team_id, name, is_static, created_at) values (${teamId}, ${SEED_COHORT}, true, ${SEED_END}::timestamptz)`.execute(
    db,
  );
  await sql`insert into cohort_people (team_id, cohort_id, person_id)
    select p.team_id, c.id, p.id from persons p join cohorts c on c.team_id = p.team_id and c.name = ${SEED_COHORT}
    where p.team_id = ${teamId} and (p.id - ${first}) % 3 = 0`.execute(db);
  // Event mix: half pageviews, then signups, purchases and noise, over the last 30 days in arrival
  // order (as ingestion writes them), each event from a pseudo-random person. Hashes, not random():
  // two databases seeded alike hold the same events (analytics-citus.bench.ts compares answers).
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
    select ${teamId}, gen_random_uuid(),
      case when r < 0.5 then '$pageview' when r < 0.7 then 'signup' when r < 0.8 then 'purchase' else 'other' end,
      'user-' || pid, pid, pid, jsonb_build_object('$current_url', '/page/' || (g % 20)), jsonb_build_object('plan', case when pid % 5 = 0 then 'pro' else 'free' end),
      ${SEED_END}::timestamptz - (1 - g::float8 / ${events}) * ${SEED_DAYS} * interval '1 day'
    from (select g, (hashint4(g # 1234567) & 2147483647)::float8 / 2147483648 as r, ${first} + (hashint4(g) & 2147483647) % ${persons} as pid from generate_series(1, ${events}) g) s`.execute(
    db,
  );
  // What autovacuum would have done by the time anyone queries: statistics and the visibility map.
  await sql`vacuum analyze`.execute(db);
  return performance.now() - started;
}
