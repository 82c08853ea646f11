// Cohorts: static ones list their members (cohort_people); dynamic ones are a property filter over
// persons, evaluated when read (so membership is never stale).
import { sql } from 'kysely';
import { parsePropertyFilter, personsWhereSql, resolveCohortFilters, type FilterNode } from '../../analytics/property-filter.ts';
import type { Db } from '../../db/database.ts';
import type { CohortRow, JsonObject, UserRow } from '../../db/schema.ts';
import { AppError, validationError } from '../../errors.ts';
import { serializeUser } from '../../http/serializers.ts';
import { addStaticMembers, findCohort, insertCohort, replaceStaticMembers, updateCohortRow } from './cohorts.repository.ts';

export const MAX_STATIC_DISTINCT_IDS = 10_000;

/** The dynamic cohort's filter with its cohort references resolved; null matches nobody. */
async function resolvedFilterOf(db: Db, cohort: CohortRow): Promise<FilterNode | null> {
  const stored = (cohort.filters as { properties?: unknown } | null)?.properties;
  if (stored === undefined || stored === null) return null;
  try {
    return await resolveCohortFilters(db, cohort.team_id, parsePropertyFilter(stored), [cohort.id]);
  } catch (error) {
    // A filter broken since it was saved (a referenced cohort deleted) matches nobody.
    if (error instanceof AppError && error.status === 400) return null;
    throw error;
  }
}

export async function countCohort(db: Db, cohort: CohortRow): Promise<number> {
  if (cohort.is_static) {
    const row = await db
      .selectFrom('cohort_people')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', cohort.team_id)
      .where('cohort_id', '=', cohort.id)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  const filter = await resolvedFilterOf(db, cohort);
  if (!filter) return 0;
  const condition = personsWhereSql(filter, cohort.team_id);
  const result = await sql<{ n: number }>`select count(*)::bigint as n from persons p where p.team_id = ${cohort.team_id}::integer and ${condition}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

export async function cohortContains(db: Db, cohort: CohortRow, personId: number): Promise<boolean> {
  if (cohort.is_static) {
    const row = await db
      .selectFrom('cohort_people')
      .select('person_id')
      .where('team_id', '=', cohort.team_id)
      .where('cohort_id', '=', cohort.id)
      .where('person_id', '=', personId)
      .executeTakeFirst();
    return row !== undefined;
  }
  const filter = await resolvedFilterOf(db, cohort);
  if (!filter) return false;
  const condition = personsWhereSql(filter, cohort.team_id);
  const result = await sql<{ id: number }>`select p.id from persons p where p.team_id = ${cohort.team_id}::integer and p.id = ${personId}::bigint and ${condition}`.execute(db);
  return result.rows.length > 0;
}

export async function serializeCohort(db: Db, cohort: CohortRow) {
  const creator: UserRow | undefined =
    cohort.created_by_id === null ? undefined : await db.selectFrom('users').selectAll().where('id', '=', cohort.created_by_id).executeTakeFirst();
  return {
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    filters: cohort.filters,
    is_static: cohort.is_static,
    count: await countCohort(db, cohort),
    created_at: cohort.created_at.toISOString(),
    created_by: creator ? serializeUser(creator) : null,
  };
}

/** Checks `filters` is `{properties: <filter group>}` naming only cohorts of the project, without cycles. */
async function validateFilters(db: Db, teamId: number, filters: unknown, selfId: number | null): Promise<JsonObject | null> {
  if (filters === null || filters === undefined) return null;
  if (typeof filters !== 'object' || Array.isArray(filters)) throw validationError('Filters must be an object with a "properties" filter group.', 'filters');
  const properties = (filters as JsonObject).properties;
  if (properties !== undefined && properties !== null) {
    try {
      const resolved = await resolveCohortFilters(db, teamId, parsePropertyFilter(properties), selfId === null ? [] : [selfId]);
      // Compiled once here, so what only compiling refuses (event filters) is a 400 before anything is stored.
      personsWhereSql(resolved, teamId);
    } catch (error) {
      if (error instanceof AppError && error.status === 400) throw validationError(error.detail, 'filters');
      throw error;
    }
  }
  return filters as JsonObject;
}

export interface CohortInput {
  name?: string;
  description?: string;
  filters?: unknown;
  is_static?: boolean;
  distinct_ids?: string[];
}

function checkDistinctIds(distinctIds: string[] | undefined) {
  if (distinctIds && distinctIds.length > MAX_STATIC_DISTINCT_IDS) {
    throw validationError(`You can only pass ${MAX_STATIC_DISTINCT_IDS} distinct_ids in one call`, 'distinct_ids');
  }
}

export async function createCohort(db: Db, teamId: number, input: CohortInput & { name: string }, createdById: number, now: Date): Promise<CohortRow> {
  checkDistinctIds(input.distinct_ids);
  const filters = await validateFilters(db, teamId, input.filters, null);
  return db.transaction().execute(async (trx) => {
    const cohort = await insertCohort(
      trx,
      { teamId, name: input.name, description: input.description ?? '', filters, isStatic: input.is_static ?? false, createdById },
      now,
    );
    if (cohort.is_static) await addStaticMembers(trx, teamId, cohort.id, input.distinct_ids ?? []);
    return cohort;
  });
}

/** Makes the persons a dynamic cohort matches now its static members. */
async function freezeMembers(db: Db, cohort: CohortRow): Promise<void> {
  const filter = await resolvedFilterOf(db, cohort);
  if (!filter) return;
  const condition = personsWhereSql(filter, cohort.team_id);
  await sql`
    insert into cohort_people (team_id, cohort_id, person_id)
    select ${cohort.team_id}::integer, ${cohort.id}::integer, p.id from persons p where p.team_id = ${cohort.team_id}::integer and ${condition}
    on conflict do nothing`.execute(db);
}

/**
 * Changes what is given. `is_static` switches the kind: a cohort made static keeps the persons it
 * matched (or the given `distinct_ids`), one made dynamic drops its member list.
 */
export async function updateCohort(db: Db, cohort: CohortRow, input: CohortInput): Promise<CohortRow> {
  checkDistinctIds(input.distinct_ids);
  const filters = input.filters === undefined ? undefined : await validateFilters(db, cohort.team_id, input.filters, cohort.id);
  const isStatic = input.is_static ?? cohort.is_static;
  return db.transaction().execute(async (trx) => {
    if (isStatic && !cohort.is_static && input.distinct_ids === undefined) await freezeMembers(trx, cohort);
    await updateCohortRow(trx, cohort.team_id, cohort.id, { name: input.name, description: input.description, filters, isStatic: input.is_static });
    if (!isStatic && cohort.is_static) await replaceStaticMembers(trx, cohort.team_id, cohort.id, []);
    if (isStatic && input.distinct_ids !== undefined) await replaceStaticMembers(trx, cohort.team_id, cohort.id, input.distinct_ids);
    const updated = await findCohort(trx, cohort.team_id, cohort.id);
    if (!updated) throw validationError('The cohort was deleted meanwhile.');
    return updated;
  });
}
