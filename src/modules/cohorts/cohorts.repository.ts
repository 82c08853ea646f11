// Cohorts of a project and their static members.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { CohortRow, JsonObject } from '../../db/schema.ts';
import type { PageRequest } from '../../http/pagination.ts';

export interface CohortDefinition {
  id: number;
  is_static: boolean;
  filters: { properties?: unknown } | null;
}

export async function findCohortDefinition(db: Db, teamId: number, cohortId: number): Promise<CohortDefinition | undefined> {
  const row = await db
    .selectFrom('cohorts')
    .select(['id', 'is_static', 'filters'])
    .where('team_id', '=', teamId)
    .where('id', '=', cohortId)
    .executeTakeFirst();
  return row ? { id: row.id, is_static: row.is_static, filters: row.filters as CohortDefinition['filters'] } : undefined;
}

export async function findCohort(db: Db, teamId: number, cohortId: number): Promise<CohortRow | undefined> {
  return db.selectFrom('cohorts').selectAll().where('team_id', '=', teamId).where('id', '=', cohortId).executeTakeFirst();
}

export async function listCohorts(db: Db, teamId: number, page: PageRequest): Promise<{ count: number; rows: CohortRow[] }> {
  const [total, rows] = await Promise.all([
    db.selectFrom('cohorts').select((eb) => eb.fn.countAll<number>().as('n')).where('team_id', '=', teamId).executeTakeFirstOrThrow(),
    db.selectFrom('cohorts').selectAll().where('team_id', '=', teamId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count: Number(total.n), rows };
}

export async function listCohortsOfTeam(db: Db, teamId: number): Promise<CohortRow[]> {
  return db.selectFrom('cohorts').selectAll().where('team_id', '=', teamId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
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

export async function deleteCohortRow(db: Db, teamId: number, cohortId: number): Promise<boolean> {
  const result = await db.deleteFrom('cohorts').where('team_id', '=', teamId).where('id', '=', cohortId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
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

export async function replaceStaticMembers(db: Db, teamId: number, cohortId: number, distinctIds: string[]): Promise<void> {
  await db.deleteFrom('cohort_people').where('team_id', '=', teamId).where('cohort_id', '=', cohortId).execute();
  await addStaticMembers(db, teamId, cohortId, distinctIds);
}
