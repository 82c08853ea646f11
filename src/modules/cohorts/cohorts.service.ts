// Cohorts: static ones list their members (cohort_people); dynamic ones are a property filter over
// persons, evaluated when read (so membership is never stale). Counts and creators of a list are
// loaded together, a few queries for the whole page.
import type { CohortRow, JsonObject, TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound, validationError } from '../../errors.ts';
import { parsePropertyFilter, personsWhereSql, type FilterNode } from '../../filters/property-filter.ts';
import type { PageRequest } from '../../wire/page.ts';
import type { Actor } from '../access/access.service.ts';
import { loadCreators } from '../users/creators.ts';
import { cohortFilterResolver, resolveCohortFilters } from './cohort-filters.ts';
import {
  addMatchingPersons,
  addStaticMembers,
  countPersonsMatching,
  cohortsListing,
  countStaticMembers,
  deleteCohortRow,
  findCohort,
  insertCohort,
  listCohortRows,
  listCohortsOfTeam,
  personMatches,
  replaceStaticMembers,
  updateCohortRow,
} from './cohorts.repository.ts';
import type { CohortInput, CohortWire, PersonCohortWire } from './cohorts.schemas.ts';

export const MAX_STATIC_DISTINCT_IDS = 10_000;

const isBadInput = (error: unknown) => error instanceof AppError && error.status === 400;

/**
 * Each dynamic cohort's filter with its cohort filters resolved, by cohort id; null matches nobody,
 * as does a filter broken since it was saved (a cohort it names deleted).
 */
async function resolvedFiltersOf(
  deps: Deps,
  teamId: number,
  cohorts: CohortRow[],
): Promise<Map<number, FilterNode | null>> {
  const parsed = new Map<number, FilterNode | null>();
  for (const cohort of cohorts) {
    if (cohort.is_static) continue;
    const stored = cohort.filters?.properties;
    try {
      parsed.set(cohort.id, stored === undefined || stored === null ? null : parsePropertyFilter(stored));
    } catch (error) {
      if (!isBadInput(error)) throw error;
      parsed.set(cohort.id, null);
    }
  }
  const resolve = await cohortFilterResolver(
    deps.db,
    teamId,
    [...parsed.values()].filter((node) => node !== null),
  );
  const resolved = new Map<number, FilterNode | null>();
  for (const [id, node] of parsed) {
    try {
      resolved.set(id, node && resolve(node, [id]));
    } catch (error) {
      if (!isBadInput(error)) throw error;
      resolved.set(id, null);
    }
  }
  return resolved;
}

/** The dynamic cohorts among these with a filter, and that filter as a condition on a person row `p`. */
async function conditionsOf(deps: Deps, teamId: number, cohorts: CohortRow[]) {
  const filters = await resolvedFiltersOf(deps, teamId, cohorts);
  const matching = [...filters].flatMap(([id, filter]) =>
    filter ? [{ id, condition: personsWhereSql(filter, teamId) }] : [],
  );
  return { ids: matching.map((entry) => entry.id), conditions: matching.map((entry) => entry.condition) };
}

/** How many persons each cohort holds now, by cohort id. */
async function countsOf(deps: Deps, teamId: number, cohorts: CohortRow[]): Promise<Map<number, number>> {
  const staticIds = cohorts.filter((cohort) => cohort.is_static).map((cohort) => cohort.id);
  const dynamic = await conditionsOf(deps, teamId, cohorts);
  const [staticCounts, dynamicCounts] = await Promise.all([
    countStaticMembers(deps.db, teamId, staticIds),
    countPersonsMatching(deps.db, teamId, dynamic.conditions),
  ]);
  const counts = new Map<number, number>(cohorts.map((cohort) => [cohort.id, staticCounts.get(cohort.id) ?? 0]));
  dynamic.ids.forEach((id, index) => counts.set(id, dynamicCounts[index]));
  return counts;
}

/** The Cohort objects of the rows, in their order. */
async function loadCohorts(deps: Deps, teamId: number, cohorts: CohortRow[]): Promise<CohortWire[]> {
  const [counts, creatorOf] = await Promise.all([countsOf(deps, teamId, cohorts), loadCreators(deps.db, cohorts)]);
  return cohorts.map((cohort) => ({
    id: cohort.id,
    name: cohort.name,
    description: cohort.description,
    filters: cohort.filters,
    is_static: cohort.is_static,
    count: counts.get(cohort.id) ?? 0,
    created_at: cohort.created_at.toISOString(),
    created_by: creatorOf(cohort),
  }));
}

async function loadCohort(deps: Deps, cohort: CohortRow): Promise<CohortWire> {
  const [wire] = await loadCohorts(deps, cohort.team_id, [cohort]);
  return wire;
}

async function requireCohort(deps: Deps, teamId: number, id: number): Promise<CohortRow> {
  const cohort = await findCohort(deps.db, teamId, id);
  if (!cohort) throw notFound();
  return cohort;
}

export async function listCohorts(
  deps: Deps,
  input: { project: TeamRow; page: PageRequest },
): Promise<{ count: number; results: CohortWire[] }> {
  const { count, rows } = await listCohortRows(deps.db, input.project.id, input.page);
  return { count, results: await loadCohorts(deps, input.project.id, rows) };
}

export async function getCohort(deps: Deps, input: { project: TeamRow; id: number }): Promise<CohortWire> {
  return loadCohort(deps, await requireCohort(deps, input.project.id, input.id));
}

/** The cohorts of the project that hold the person, newest first. */
export async function listCohortsHolding(
  deps: Deps,
  input: { project: TeamRow; personId: number },
): Promise<PersonCohortWire[]> {
  const teamId = input.project.id;
  const cohorts = await listCohortsOfTeam(deps.db, teamId);
  const dynamic = await conditionsOf(deps, teamId, cohorts);
  const [listed, matches] = await Promise.all([
    cohortsListing(deps.db, teamId, input.personId),
    personMatches(deps.db, teamId, input.personId, dynamic.conditions),
  ]);
  // Member lists count for static cohorts only, filters for dynamic ones.
  const holds = new Set(
    cohorts.filter((cohort) => cohort.is_static && listed.includes(cohort.id)).map((cohort) => cohort.id),
  );
  dynamic.ids.forEach((id, index) => {
    if (matches[index]) holds.add(id);
  });
  const holding = cohorts.filter((cohort) => holds.has(cohort.id));
  const counts = await countsOf(deps, teamId, holding);
  return holding.map((cohort) => ({
    id: cohort.id,
    name: cohort.name,
    count: counts.get(cohort.id) ?? 0,
    is_static: cohort.is_static,
    created_at: cohort.created_at.toISOString(),
  }));
}

const blankName = () => validationError('This field may not be blank.', 'name', 'blank');

/** Checks `filters` is `{properties: <filter group>}` naming only cohorts of the project, without cycles. */
async function validateFilters(
  deps: Deps,
  teamId: number,
  filters: unknown,
  selfId: number | null,
): Promise<JsonObject | null> {
  if (filters === null || filters === undefined) return null;
  if (typeof filters !== 'object' || Array.isArray(filters))
    throw validationError('Filters must be an object with a "properties" filter group.', 'filters');
  const properties = (filters as JsonObject).properties;
  if (properties !== undefined && properties !== null) {
    try {
      const resolved = await resolveCohortFilters(
        deps.db,
        teamId,
        parsePropertyFilter(properties),
        selfId === null ? [] : [selfId],
      );
      // Compiled once here, so what only compiling refuses (event filters) is a 400 before anything is stored.
      personsWhereSql(resolved, teamId);
    } catch (error) {
      if (error instanceof AppError && error.status === 400) throw validationError(error.detail, 'filters');
      throw error;
    }
  }
  return filters as JsonObject;
}

function checkDistinctIds(distinctIds: string[] | undefined) {
  if (distinctIds && distinctIds.length > MAX_STATIC_DISTINCT_IDS) {
    throw validationError(`You can only pass ${MAX_STATIC_DISTINCT_IDS} distinct_ids in one call`, 'distinct_ids');
  }
}

export async function createCohort(
  deps: Deps,
  actor: Actor,
  input: CohortInput & { project: TeamRow; name: string },
): Promise<CohortWire> {
  const name = input.name.trim();
  if (name === '') throw blankName();
  const teamId = input.project.id;
  checkDistinctIds(input.distinct_ids);
  const filters = await validateFilters(deps, teamId, input.filters, null);
  const cohort = await deps.db.transaction().execute(async (trx) => {
    const created = await insertCohort(
      trx,
      {
        teamId,
        name,
        description: input.description ?? '',
        filters,
        isStatic: input.is_static ?? false,
        createdById: actor.user.id,
      },
      deps.clock.now(),
    );
    if (created.is_static) await addStaticMembers(trx, teamId, created.id, input.distinct_ids ?? []);
    return created;
  });
  return loadCohort(deps, cohort);
}

/** Makes the persons a dynamic cohort matches now its static members. */
async function freezeMembers(deps: Deps, cohort: CohortRow): Promise<void> {
  const { conditions } = await conditionsOf(deps, cohort.team_id, [cohort]);
  if (conditions.length > 0) await addMatchingPersons(deps.db, cohort.team_id, cohort.id, conditions[0]);
}

/**
 * Changes what is given. `is_static` switches the kind: a cohort made static keeps the persons it
 * matched (or the given `distinct_ids`), one made dynamic drops its member list.
 */
export async function updateCohort(
  deps: Deps,
  input: CohortInput & { project: TeamRow; id: number },
): Promise<CohortWire> {
  const cohort = await requireCohort(deps, input.project.id, input.id);
  const name = input.name?.trim();
  if (name === '') throw blankName();
  checkDistinctIds(input.distinct_ids);
  const filters =
    input.filters === undefined ? undefined : await validateFilters(deps, cohort.team_id, input.filters, cohort.id);
  const isStatic = input.is_static ?? cohort.is_static;
  const updated = await deps.db.transaction().execute(async (trx) => {
    if (isStatic && !cohort.is_static && input.distinct_ids === undefined)
      await freezeMembers({ ...deps, db: trx }, cohort);
    await updateCohortRow(trx, cohort.team_id, cohort.id, {
      name,
      description: input.description,
      filters,
      isStatic: input.is_static,
    });
    if (!isStatic && cohort.is_static) await replaceStaticMembers(trx, cohort.team_id, cohort.id, []);
    if (isStatic && input.distinct_ids !== undefined)
      await replaceStaticMembers(trx, cohort.team_id, cohort.id, input.distinct_ids);
    const row = await findCohort(trx, cohort.team_id, cohort.id);
    if (!row) throw validationError('The cohort was deleted meanwhile.');
    return row;
  });
  return loadCohort(deps, updated);
}

export async function deleteCohort(deps: Deps, input: { project: TeamRow; id: number }): Promise<void> {
  if (!(await deleteCohortRow(deps.db, input.project.id, input.id))) throw notFound();
}
