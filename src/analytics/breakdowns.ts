// Breakdowns as every view reads them: whether a request has one, its `breakdown_type`, the
// property `breakdown` names and that property's value on an event row, the cohorts a cohort
// breakdown lists, and one breakdown value (a persons view's narrowing) as a condition.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { filterReads, filterSql, parseFilter, resolveFilter, type FilterNode, type FilterReads } from './filters.ts';
import { intParam, jsonParam, stringParam, type RawParams } from './params.ts';
import type { ViewContext } from './view-context.ts';

export type PropertyBreakdownType = 'event' | 'person';

const MAX_COHORT_ID = 2_147_483_647;
const DEFAULT_BREAKDOWN_LIMIT = 25;

/** A request breaks down when `breakdown` holds something. */
export function hasBreakdown(raw: RawParams): boolean {
  return raw.breakdown !== undefined && raw.breakdown !== null && raw.breakdown !== '';
}

/**
 * `breakdown_type` of a request that breaks down: a missing one is `event` (PostHog's default).
 * The trends persons view alone narrows only when the type is given (see trends-request.ts).
 */
export function breakdownTypeParam(raw: RawParams): string {
  return stringParam(raw, 'breakdown_type') ?? 'event';
}

/** An event or person breakdown; any other type but a cohort one is a 400. */
export function propertyBreakdownType(type: string): PropertyBreakdownType {
  if (type !== 'event' && type !== 'person')
    throw validationError(`Breakdown type "${type}" is not supported.`, 'breakdown_type');
  return type;
}

/** `breakdown`: a property name, or a JSON list holding one. */
export function breakdownKey(raw: RawParams): string {
  let key: unknown = raw.breakdown;
  if (typeof key === 'string' && key.startsWith('[')) key = jsonParam(raw, 'breakdown', 'breakdown is not valid JSON.');
  if (typeof key === 'number') key = String(key);
  if (Array.isArray(key) && key.length === 1) key = key[0];
  if (typeof key !== 'string') throw validationError('A single breakdown property is required.', 'breakdown');
  return key;
}

/** The breakdown value of the event row `e`: the property as text, a missing one as "". */
export function breakdownValueSql(type: PropertyBreakdownType, key: string): RawBuilder<string> {
  const column = type === 'event' ? sql.ref('e.properties') : sql.ref('e.person_properties');
  return sql<string>`coalesce(${column}->>${key}, '')`;
}

/** A property breakdown of an insight: the property, and how many of its values to answer. */
export interface PropertyBreakdown {
  type: PropertyBreakdownType;
  key: string;
  limit: number;
}

export function propertyBreakdownParam(raw: RawParams, type: string): PropertyBreakdown {
  const propertyType = propertyBreakdownType(type);
  const limit = intParam(raw, 'breakdown_limit', { min: 1, max: 1000 }) ?? DEFAULT_BREAKDOWN_LIMIT;
  return { type: propertyType, key: breakdownKey(raw), limit };
}

/** An insight's breakdown: its type, and the cohorts it lists or the property it groups by. */
export interface InsightBreakdown {
  type: string;
  groups: CohortGroup[] | PropertyBreakdown;
}

/** An insight's breakdown (null without one); `refuseHistogram`: a histogram breakdown is a 400. */
export async function insightBreakdownParam(
  context: ViewContext,
  raw: RawParams,
  refuseHistogram: boolean,
): Promise<InsightBreakdown | null> {
  if (!hasBreakdown(raw)) return null;
  const type = breakdownTypeParam(raw);
  if (refuseHistogram && stringParam(raw, 'breakdown_histogram_bin_count') !== undefined)
    throw validationError('Histogram breakdowns are not supported by the insight.', 'breakdown_histogram_bin_count');
  const groups = type === 'cohort' ? await cohortBreakdownParam(context, raw) : propertyBreakdownParam(raw, type);
  return { type, groups };
}

/** One group of a cohort breakdown: a cohort, or `all` (everyone). */
export interface CohortGroup {
  id: number | 'all';
  /** The cohort's filter, resolved (null for `all`). */
  filter: FilterNode | null;
}

/** The cohort ids (or `all`) a cohort breakdown lists in `breakdown`, each resolved. */
export async function cohortBreakdownParam(context: ViewContext, raw: RawParams): Promise<CohortGroup[]> {
  const listed = raw.breakdown === 'all' ? 'all' : jsonParam(raw, 'breakdown');
  const ids = Array.isArray(listed) ? listed : [listed];
  if (ids.length === 0 || !ids.every((id) => id === 'all' || isCohortId(id)))
    throw validationError('A cohort breakdown is a list of cohort ids (or "all").', 'breakdown');
  return Promise.all(
    ids.map(async (id: number | 'all') =>
      id === 'all' ? { id, filter: null } : { id, filter: await cohortFilter(context, id, 'breakdown') },
    ),
  );
}

/** A cohort id: a whole number from 1 to 2^31 - 1 (the key's range). */
function isCohortId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= MAX_COHORT_ID;
}

async function cohortFilter(context: ViewContext, id: number, attr: string): Promise<FilterNode | null> {
  return resolveFilter(context, parseFilter([{ key: 'id', type: 'cohort', value: id }], attr), attr);
}

/** The persons view's narrowing to one breakdown value. */
export type BreakdownValue =
  | { kind: 'everyone' }
  | { kind: 'cohort'; filter: FilterNode | null }
  | { kind: 'equal'; type: PropertyBreakdownType; key: string; value: string }
  /** A histogram bucket: the property's number from the lower bound up to, not including, the upper. */
  | { kind: 'histogram'; filter: FilterNode };

/**
 * One breakdown value (`value`, read from `attr`) of a breakdown of `type`: a cohort id (a JSON
 * number or decimal digits; `all` where `allowAll`), else the property value as text; with
 * `histogram`, a `[lo, hi]` bucket of the property's numbers.
 */
export async function breakdownValueParam(
  context: ViewContext,
  raw: RawParams,
  given: {
    type: string;
    value: string | number | boolean;
    attr: string;
    allowAll: boolean;
    /** Whether the value is a histogram bucket (read after the type and the key). */
    histogram: () => boolean;
  },
): Promise<BreakdownValue> {
  const { type, value, attr } = given;
  if (type === 'cohort') {
    if (given.allowAll && value === 'all') return { kind: 'everyone' };
    const id = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (!isCohortId(id)) throw validationError('A valid cohort id is required.', attr);
    return { kind: 'cohort', filter: await cohortFilter(context, id, attr) };
  }
  const propertyType = propertyBreakdownType(type);
  const key = breakdownKey(raw);
  if (!given.histogram()) return { kind: 'equal', type: propertyType, key, value: String(value) };
  // A histogram bucket arrives as "[lo, hi]": lo <= value < hi.
  const bounds = jsonParam(raw, attr, `${attr} is not valid JSON.`);
  if (
    !Array.isArray(bounds) ||
    bounds.length !== 2 ||
    !bounds.every((bound) => typeof bound === 'number' && Number.isFinite(bound))
  ) {
    throw validationError(`A histogram ${attr} must be a [lower, upper] pair of numbers.`, attr);
  }
  const filter = [
    { key, value: bounds[0], operator: 'gte', type: propertyType },
    { key, value: bounds[1], operator: 'lt', type: propertyType },
  ];
  return { kind: 'histogram', filter: parseFilter(filter, attr) };
}

/** The condition on the event row `e` that it has the breakdown value. */
export function breakdownValueConditionSql(value: BreakdownValue, teamId: number): RawBuilder<unknown> {
  if (value.kind === 'everyone') return sql`true`;
  if (value.kind === 'cohort') return filterSql(value.filter, teamId);
  if (value.kind === 'equal') return sql`${breakdownValueSql(value.type, value.key)} = ${value.value}`;
  return filterSql(value.filter, teamId);
}

/** What the condition of breakdownValueConditionSql reads of the event row `e`. */
export function breakdownValueReads(value: BreakdownValue): FilterReads {
  if (value.kind === 'everyone') return filterReads(null);
  if (value.kind === 'equal')
    return { ...filterReads(null), [value.type === 'event' ? 'properties' : 'personProperties']: true };
  return filterReads(value.filter);
}
