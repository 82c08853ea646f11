// Cohorts of a project, their static members, and the persons their filters match.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CohortRow, JsonObject } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';

export interface CohortDefinition {
  id: number;
  is_static: boolean;
  filters: { properties?: unknown } | null;
}

/** The definitions of the cohorts of the project among these ids, by id. */
export async function findCohortDefinitions(
  db: Db,
  teamId: number,
  cohortIds: number[],
): Promise<Map<number, CohortDefinition>> {
  if (cohortIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('cohorts')
    .select(['id', 'is_static', 'filters'])
    .where('team_id', '=', teamId)
    .where('id', 'in', cohortIds)
    .execute();
  return new Map(
    rows.map((row) => [
      row.id,
      { id: row.id, is_static: row.is_static, filters: row.filters as CohortDefinition['filters'] },
    ]),
  );
}

export async function findCohort(db: Db, teamId: number, cohortId: number): Promise<CohortRow | undefined> {
  return db
    .selectFrom('cohorts')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('id', '=', cohortId)
    .executeTakeFirst();
}

export async function listCohortRows(
  db: Db,
  teamId: number,
  page: PageRequest,
): Promise<{ count: number; rows: CohortRow[] }> {
  const [total, rows] = await Promise.all([
    db
      .selectFrom('cohorts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', teamId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('cohorts')
      .selectAll()
      .where('team_id', '=', teamId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(total.n), rows };
}

export async function listCohortsOfTeam(db: Db, teamId: number): Promise<CohortRow[]> {
  return db
    .selectFrom('cohorts')
    .selectAll()
    .where('team_id', '=', teamId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

export interface NewCohort {
  teamId: number;
  name: string;
  description: string;
  filters: JsonObject | null;
  isStatic: boolean;
  createdById: number;
}

export async function insertCohort(db: Db, cohort: NewCohort, now: Date): Promise<CohortRow> {
  return db
    .insertInto('cohorts')
    .values({
      team_id: cohort.teamId,
      name: cohort.name,
      description: cohort.description,
      filters: cohort.filters === null ? null : JSON.stringify(cohort.filters),
      is_static: cohort.isStatic,
      created_by_id: cohort.createdById,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateCohortRow(
  db: Db,
  teamId: number,
  cohortId: number,
  changes: { name?: string; description?: string; filters?: JsonObject | null; isStatic?: boolean },
): Promise<void> {
  const set: Record<string, unknown> = {};
  if (changes.isStatic !== undefined) set.is_static = changes.isStatic;
  if (changes.name !== undefined) set.name = changes.name;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.filters !== undefined) set.filters = changes.filters === null ? null : JSON.stringify(changes.filters);
  if (Object.keys(set).length === 0) return;
  await db.updateTable('cohorts').set(set).where('team_id', '=', teamId).where('id', '=', cohortId).execute();
}

/**
 * Deletes the cohort and its static members (no foreign key cascades to them: migration 0019), in
 * that order and in one transaction: the row's lock makes a concurrent update that adds members
 * finish first, and the members' delete, a statement after it, then sees them.
 */
export async function deleteCohortRow(db: Db, teamId: number, cohortId: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .deleteFrom('cohorts')
      .where('team_id', '=', teamId)
      .where('id', '=', cohortId)
      .executeTakeFirst();
    await trx.deleteFrom('cohort_people').where('team_id', '=', teamId).where('cohort_id', '=', cohortId).execute();
    return Number(result.numDeletedRows) > 0;
  });
}

/** Adds the persons owning these distinct ids to a static cohort; unknown ids are ignored. */
export async function addStaticMembers(db: Db, teamId: number, cohortId: number, distinctIds: string[]): Promise<void> {
  if (distinctIds.length === 0) return;
  await sql`
    insert into cohort_people (team_id, cohort_id, person_id)
    select distinct ${teamId}::integer, ${cohortId}::integer, d.person_id from person_distinct_ids d
    where d.team_id = ${teamId}::integer and d.distinct_id in (${sql.join(distinctIds.map((id) => sql`${id}::text`))})
      and d.person_id is not null
    on conflict do nothing`.execute(db);
}

export async function replaceStaticMembers(
  db: Db,
  teamId: number,
  cohortId: number,
  distinctIds: string[],
): Promise<void> {
  await db.deleteFrom('cohort_people').where('team_id', '=', teamId).where('cohort_id', '=', cohortId).execute();
  await addStaticMembers(db, teamId, cohortId, distinctIds);
}

/** How many members each of these static cohorts has, by cohort id (absent: none). */
export async function countStaticMembers(db: Db, teamId: number, cohortIds: number[]): Promise<Map<number, number>> {
  if (cohortIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('cohort_people')
    .select(['cohort_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('team_id', '=', teamId)
    .where('cohort_id', 'in', cohortIds)
    .groupBy('cohort_id')
    .execute();
  return new Map(rows.map((row) => [row.cohort_id, Number(row.n)]));
}

/** The cohorts whose member list holds the person. */
export async function cohortsListing(db: Db, teamId: number, personId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('cohort_people')
    .select('cohort_id')
    .where('team_id', '=', teamId)
    .where('person_id', '=', personId)
    .execute();
  return rows.map((row) => row.cohort_id);
}

/** For each condition on a person row `p`, how many persons of the project meet it: one statement. */
export async function countPersonsMatching(
  db: Db,
  teamId: number,
  conditions: Expression<SqlBool>[],
): Promise<number[]> {
  if (conditions.length === 0) return [];
  const counts = conditions.map(
    (condition) => sql`(select count(*) from persons p where p.team_id = ${teamId}::integer and ${condition})`,
  );
  const result = await sql<{
    counts: (number | string)[];
  }>`select array[${sql.join(counts)}]::bigint[] as counts`.execute(db);
  return result.rows[0].counts.map(Number);
}

/** For each condition on a person row `p`, whether the person meets it: one statement. */
export async function personMatches(
  db: Db,
  teamId: number,
  personId: number,
  conditions: Expression<SqlBool>[],
): Promise<boolean[]> {
  if (conditions.length === 0) return [];
  const tests = conditions.map(
    (condition) =>
      sql`exists (select 1 from persons p where p.team_id = ${teamId}::integer and p.id = ${personId}::bigint and ${condition})`,
  );
  const result = await sql<{ matches: boolean[] }>`select array[${sql.join(tests)}]::boolean[] as matches`.execute(db);
  return result.rows[0].matches;
}

/** Makes the persons meeting the condition static members of the cohort. */
export async function addMatchingPersons(
  db: Db,
  teamId: number,
  cohortId: number,
  condition: Expression<SqlBool>,
): Promise<void> {
  await sql`
    insert into cohort_people (team_id, cohort_id, person_id)
    select ${teamId}::integer, ${cohortId}::integer, p.id from persons p where p.team_id = ${teamId}::integer and ${condition}
    on conflict do nothing`.execute(db);
}
