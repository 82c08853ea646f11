// The views' event-level conditions on the event row `e`: property filters (through the persons
// filter compiler) and `search`. Person filters test the snapshot stored on each event
// (`e.person_properties`), the properties the person had when acting, as PostHog's
// persons-on-events mode does; it also keeps every view a scan of `events` alone.
import { sql, type RawBuilder } from 'kysely';
import { containsPattern } from '../db/like-pattern.ts';
import { validationError } from '../errors.ts';
import {
  compilePropertyFilterForWhere,
  isGroup,
  parsePropertyFilter,
  type FilterNode,
} from '../filters/property-filter.ts';
import { resolveCohortFilters } from '../modules/cohorts/cohort-filters.ts';
import type { ViewContext } from './view-context.ts';
import { jsonParam, stringParam, type RawParams } from './params.ts';

export type { FilterNode };

/** `properties` of a request (list or AND/OR group), cohorts resolved; unparsable JSON is PostHog's message. */
export async function propertiesParam(
  context: ViewContext,
  raw: RawParams,
  key = 'properties',
): Promise<FilterNode | null> {
  const value = jsonParam(raw, key, 'Properties are unparsable!');
  if (value === undefined) return null;
  if (Array.isArray(value) && value.length === 0) return null;
  return resolveFilter(context, parseFilter(value, key), key);
}

/** Checks cohort ids and inlines dynamic cohorts, so the filter compiles synchronously. */
export async function resolveFilter(
  context: ViewContext,
  node: FilterNode | null,
  attr = 'properties',
): Promise<FilterNode | null> {
  if (!node) return null;
  try {
    return await resolveCohortFilters(context.db, context.teamId, node);
  } catch (error) {
    throw remapAttr(error, attr);
  }
}

function remapAttr(error: unknown, attr: string): unknown {
  if (attr === 'properties' || !(error && typeof error === 'object' && 'status' in error)) return error;
  const appError = error as { status: number; detail?: string };
  return appError.status === 400 ? validationError(appError.detail ?? 'Invalid property filter.', attr) : error;
}

export function parseFilter(value: unknown, attr: string): FilterNode {
  try {
    return parsePropertyFilter(value);
  } catch (error) {
    throw remapAttr(error, attr);
  }
}

/** What a filter reads of the event row `e`, besides `person_id`. */
export interface FilterReads {
  /** `e.properties` (event property filters). */
  properties: boolean;
  /** `e.person_properties` (person property filters, dynamic cohorts' conditions). */
  personProperties: boolean;
  /** The members of a static cohort (`cohort_people`), by `e.person_key`. */
  staticCohort: boolean;
}

/** What the resolved filter `node` reads (dynamic cohorts' filters included). */
export function filterReads(node: FilterNode | null): FilterReads {
  const reads: FilterReads = { properties: false, personProperties: false, staticCohort: false };
  const visit = (child: FilterNode | null) => {
    if (!child) return;
    if (isGroup(child)) child.values.forEach(visit);
    else if (child.type === 'cohort') {
      if (child.cohort?.isStatic) reads.staticCohort = true;
      else visit(child.cohort?.filter ?? null);
    } else if (child.type === 'event') reads.properties = true;
    else reads.personProperties = true;
  };
  visit(node);
  return reads;
}

/**
 * A parsed filter as a condition on the event row `e`, for WHERE and FILTER clauses (where null
 * counts as false; a caller that selects it as a value coalesces it). Without an outer coalesce a
 * static cohort's `person_key in (…)` among the conditions is planned as a semi-join: wrapped, it is
 * a subplan, hashed only while the members fit in work_mem × hash_mem_multiplier (about 260 000 by
 * default) and otherwise run again for every event (a funnel by a static cohort of 333 000 persons
 * at 10M events passed 60 s; at 1M, 33 000 members, with work_mem at 300 kB, 8 s became over
 * 120 s; as a semi-join, 3.6 s with either).
 */
export function filterSql(node: FilterNode | null, teamId: number): RawBuilder<unknown> {
  if (!node) return sql`true`;
  return sql`${compilePropertyFilterForWhere(node, {
    teamId,
    properties: sql.ref('e.person_properties'),
    eventProperties: sql.ref('e.properties'),
    personId: sql.ref('e.person_key'),
  })}`;
}

/** `search`: the text (trimmed) persons' email or name, or the event's distinct id, must contain. */
export function searchParam(raw: RawParams): string | undefined {
  return stringParam(raw, 'search')?.trim() || undefined;
}

/** `search` as a condition on the event row `e` (as PostHog's persons API of 2022–2024 reads it). */
export function searchTextSql(search: string | undefined): RawBuilder<unknown> {
  if (!search) return sql`true`;
  const pattern = containsPattern(search);
  return sql`(e.person_properties->>'email' ilike ${pattern} or e.person_properties->>'name' ilike ${pattern} or e.distinct_id ilike ${pattern})`;
}

/** `search`: person email or name, or the event's distinct id, containing the text. */
export function searchSql(raw: RawParams): RawBuilder<unknown> {
  return searchTextSql(searchParam(raw));
}

/** What every view narrows its events by: the request's `properties` and `search`. */
export interface EventFilters {
  properties: FilterNode | null;
  search: string | undefined;
}

/** `properties` (cohorts resolved), then `search`. */
export async function eventFiltersParam(context: ViewContext, raw: RawParams): Promise<EventFilters> {
  const properties = await propertiesParam(context, raw);
  return { properties, search: searchParam(raw) };
}

/** The filters as conditions on the event row `e`. */
export function eventFiltersSql(filters: EventFilters, teamId: number): RawBuilder<unknown>[] {
  return [filterSql(filters.properties, teamId), searchTextSql(filters.search)];
}

export function andSql(conditions: RawBuilder<unknown>[]): RawBuilder<unknown> {
  return conditions.length === 0 ? sql`true` : sql`(${sql.join(conditions, sql` and `)})`;
}
