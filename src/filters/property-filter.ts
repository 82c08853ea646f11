// Property filters (`properties` of the persons list, cohorts and the analytical views): parsed and
// checked into a tree, then compiled into one parameterised SQL boolean. Keys and values are always
// bound parameters, never SQL text. No database here: a cohort filter is compiled from what the
// cohorts module resolved into it (the cohort's kind and, when dynamic, its own filter inlined).
import { sql, type Expression, type SqlBool } from 'kysely';
import { containsPattern } from '../db/like-pattern.ts';
import { validationError } from '../errors.ts';
import { shownValue } from '../json-shape.ts';
import { isDateOnly, parseUtcDate } from '../utc-date.ts';

export interface PropertyFilter {
  key: string;
  value?: unknown;
  operator?: string;
  type?: 'person' | 'cohort' | 'event';
  /** Set on cohort filters by the cohorts module's resolveCohortFilters: the cohort's kind and, when dynamic, its filter. */
  cohort?: { isStatic: boolean; filter: FilterNode | null };
}

export interface FilterGroup {
  type: 'AND' | 'OR';
  values: FilterNode[];
}

export type FilterNode = FilterGroup | PropertyFilter;

export const MAX_FILTER_DEPTH = 20;
export const MAX_FILTER_VALUES = 10_000;

export const PROPERTY_OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
] as const;
const COHORT_OPERATORS = ['in', 'exact', 'not_in', 'is_not'];
// The platform's other spellings of a cohort filter.
const COHORT_TYPES = new Set(['cohort', 'precalculated-cohort', 'static-cohort']);

export const invalidFilter = (detail: string) => validationError(detail, 'properties');

export function isGroup(node: FilterNode): node is FilterGroup {
  return (node.type === 'AND' || node.type === 'OR') && 'values' in node;
}

type Scalar = string | number | boolean;
const isScalar = (value: unknown): value is Scalar =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean';

interface Budget {
  values: number;
}

function parseLeaf(raw: Record<string, unknown>, budget: Budget): PropertyFilter {
  const type = raw.type === undefined || raw.type === null ? 'person' : raw.type;
  if (typeof type !== 'string') throw invalidFilter('Property filter type must be a string.');
  if (COHORT_TYPES.has(type)) {
    const id = typeof raw.value === 'string' && /^\d+$/.test(raw.value) ? Number(raw.value) : raw.value;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
      throw invalidFilter('A cohort filter needs the cohort id as its value.');
    const operator = raw.operator ?? 'in';
    if (typeof operator !== 'string' || !COHORT_OPERATORS.includes(operator))
      throw invalidFilter(`Operator "${shownValue(operator)}" is not valid for a cohort filter.`);
    budget.values += 1;
    return {
      key: 'id',
      value: id,
      operator: operator === 'not_in' || operator === 'is_not' ? 'not_in' : 'in',
      type: 'cohort',
    };
  }
  if (type !== 'person' && type !== 'event') throw invalidFilter(`Property filter type "${type}" is not supported.`);
  if (typeof raw.key !== 'string' || raw.key.length === 0) throw invalidFilter('Each property filter needs a key.');
  // PostgreSQL text cannot hold U+0000: refuse it here rather than fail in the query.
  if (raw.key.includes('\u0000') || JSON.stringify(raw.value ?? null).includes('\\u0000'))
    throw invalidFilter('Null characters are not allowed.');
  const operator = raw.operator === undefined || raw.operator === null ? 'exact' : raw.operator;
  if (typeof operator !== 'string' || !(PROPERTY_OPERATORS as readonly string[]).includes(operator)) {
    throw invalidFilter(`Operator "${shownValue(operator)}" is not supported.`);
  }
  const filter: PropertyFilter = { key: raw.key, operator, type };
  if (operator === 'is_set' || operator === 'is_not_set') {
    budget.values += 1;
    return filter;
  }
  filter.value = parseValue(operator, raw.value);
  budget.values += Array.isArray(filter.value) ? filter.value.length : 1;
  return filter;
}

function parseValue(operator: string, value: unknown): unknown {
  if (value === undefined || value === null) throw invalidFilter(`The "${operator}" operator needs a value.`);
  if (operator === 'exact' || operator === 'is_not') {
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0 || !values.every(isScalar))
      throw invalidFilter(`The "${operator}" operator needs a string, number, boolean or a list of them.`);
    return Array.isArray(value) ? values : value;
  }
  if (!isScalar(value)) throw invalidFilter(`The "${operator}" operator needs a single string, number or boolean.`);
  if (operator === 'gt' || operator === 'gte' || operator === 'lt' || operator === 'lte') {
    const number =
      typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (!Number.isFinite(number)) throw invalidFilter(`The "${operator}" operator needs a number.`);
    return number;
  }
  if (operator.startsWith('is_date_')) {
    const year = typeof value === 'string' ? parseUtcDate(value).getUTCFullYear() : NaN;
    // Years the database can store as a timestamp, so the query never fails on the value.
    if (!(year >= 1 && year <= 9999)) throw invalidFilter(`The "${operator}" operator needs a date.`);
    return value;
  }
  if (operator === 'regex' || operator === 'not_regex') {
    try {
      new RegExp(String(value));
    } catch {
      throw invalidFilter(`Invalid regular expression: ${String(value)}`);
    }
  }
  return String(value);
}

function parseNode(raw: unknown, depth: number, budget: Budget): FilterNode {
  // Only groups count towards the depth: 20 nested groups holding a filter are allowed.
  const tooDeep = () => invalidFilter(`Property filters can nest at most ${MAX_FILTER_DEPTH} deep.`);
  if (Array.isArray(raw)) {
    if (depth > MAX_FILTER_DEPTH) throw tooDeep();
    return { type: 'AND', values: raw.map((item) => parseNode(item, depth + 1, budget)) };
  }
  if (typeof raw !== 'object' || raw === null)
    throw invalidFilter('A property filter must be an object, a list or an AND/OR group.');
  const object = raw as Record<string, unknown>;
  if (object.type === 'AND' || object.type === 'OR') {
    if (depth > MAX_FILTER_DEPTH) throw tooDeep();
    if (!Array.isArray(object.values)) throw invalidFilter('An AND/OR group needs a list of values.');
    const values = object.values.map((item) => parseNode(item, depth + 1, budget));
    if (budget.values > MAX_FILTER_VALUES)
      throw invalidFilter(`Property filters can hold at most ${MAX_FILTER_VALUES} values.`);
    return { type: object.type, values };
  }
  const leaf = parseLeaf(object, budget);
  if (budget.values > MAX_FILTER_VALUES)
    throw invalidFilter(`Property filters can hold at most ${MAX_FILTER_VALUES} values.`);
  return leaf;
}

/** Validates raw JSON (string or parsed) into a filter tree; throws AppError 400 with attr 'properties'. Limits: depth 20, 10 000 values. */
export function parsePropertyFilter(raw: unknown): FilterNode {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalidFilter('Properties must be valid JSON.');
    }
  }
  return parseNode(value, 1, { values: 0 });
}

export interface CompileContext {
  teamId: number;
  /** The JSONB person properties to test (e.g. sql.ref('p.properties') or sql.ref('e.person_properties')). */
  properties: Expression<unknown>;
  /** The JSONB event properties for `type: 'event'` filters; absent → those filters are a 400. */
  eventProperties?: Expression<unknown>;
  /** The person id expression, for cohort filters. */
  personId: Expression<unknown>;
  /**
   * Person properties that have a column of their own holding `properties ->> key` (the persons
   * table's email and name, which its search indexes read): a filter on one tests the column.
   */
  columns?: ReadonlyMap<string, Expression<string | null>>;
}

const TRUE = sql<SqlBool>`true`;
const FALSE = sql<SqlBool>`false`;

/** The JSON text form a value is compared in: strings unquoted, numbers and booleans as written. */
const textOf = (value: unknown) => String(value);

function compileLeaf(filter: PropertyFilter, ctx: CompileContext, depth: number): Expression<SqlBool> {
  if (filter.type === 'cohort') return compileCohort(filter, ctx, depth);
  const source = filter.type === 'event' ? ctx.eventProperties : ctx.properties;
  if (!source) throw invalidFilter('Event property filters are not supported here.');
  const json = sql`(${source} -> ${filter.key}::text)`;
  const column = filter.type === 'event' ? undefined : ctx.columns?.get(filter.key);
  const text = column ? sql<string>`(${column})` : sql<string>`(${source} ->> ${filter.key}::text)`;
  const value = filter.value;
  switch (filter.operator ?? 'exact') {
    case 'exact':
    case 'is_not': {
      const values = (Array.isArray(value) ? value : [value]).map((item) => sql`${textOf(item)}::text`);
      const matches = sql<SqlBool>`${text} in (${sql.join(values)})`;
      return filter.operator === 'is_not' ? sql<SqlBool>`(${text} is null or not ${matches})` : matches;
    }
    case 'icontains':
      return sql<SqlBool>`${text} ilike ${containsPattern(String(value))}::text`;
    case 'not_icontains':
      return sql<SqlBool>`(${text} is null or ${text} not ilike ${containsPattern(String(value))}::text)`;
    // A pattern the database rejects matches nothing (herd_regex_match yields null).
    case 'regex':
      return sql<SqlBool>`(herd_regex_match(coalesce(${text}, ''), ${String(value)}::text) is true)`;
    case 'not_regex':
      return sql<SqlBool>`(herd_regex_match(coalesce(${text}, ''), ${String(value)}::text) is false)`;
    case 'gt':
      return sql<SqlBool>`(herd_jsonb_numeric(${json}) > ${String(value)}::numeric)`;
    case 'gte':
      return sql<SqlBool>`(herd_jsonb_numeric(${json}) >= ${String(value)}::numeric)`;
    case 'lt':
      return sql<SqlBool>`(herd_jsonb_numeric(${json}) < ${String(value)}::numeric)`;
    case 'lte':
      return sql<SqlBool>`(herd_jsonb_numeric(${json}) <= ${String(value)}::numeric)`;
    case 'is_set':
      return sql<SqlBool>`coalesce(jsonb_typeof(${json}) <> 'null', false)`;
    case 'is_not_set':
      return sql<SqlBool>`coalesce(jsonb_typeof(${json}) = 'null', true)`;
    case 'is_date_exact':
    case 'is_date_before':
    case 'is_date_after':
      return compileDate(filter.operator ?? '', json, String(value));
    default:
      throw invalidFilter(`Operator "${String(filter.operator)}" is not supported.`);
  }
}

function compileDate(operator: string, json: Expression<unknown>, value: string): Expression<SqlBool> {
  const stored = sql`herd_jsonb_timestamptz(${json})`;
  const at = parseUtcDate(value).toISOString();
  if (operator === 'is_date_before') return sql<SqlBool>`(${stored} < ${at}::timestamptz)`;
  if (operator === 'is_date_after') return sql<SqlBool>`(${stored} > ${at}::timestamptz)`;
  // A date without a time names the whole (UTC) day.
  if (isDateOnly(value))
    return sql<SqlBool>`(${stored} >= ${at}::timestamptz and ${stored} < ${at}::timestamptz + interval '1 day')`;
  return sql<SqlBool>`(${stored} = ${at}::timestamptz)`;
}

function compileCohort(filter: PropertyFilter, ctx: CompileContext, depth: number): Expression<SqlBool> {
  const cohortId = Number(filter.value);
  let member: Expression<SqlBool>;
  if (filter.cohort && !filter.cohort.isStatic) {
    member = filter.cohort.filter ? compileNode(filter.cohort.filter, ctx, depth + 1) : FALSE;
  } else if (filter.cohort?.isStatic) {
    // Not a correlated exists: on Citus the events a view filters are spread apart from cohort_people.
    member = sql<SqlBool>`${ctx.personId} in (select cp.person_id from cohort_people cp where cp.team_id = ${ctx.teamId}::integer and cp.cohort_id = ${cohortId}::integer)`;
  } else {
    throw new Error('cohort filters must be resolved with resolveCohortFilters before compiling');
  }
  return filter.operator === 'not_in' ? sql<SqlBool>`not coalesce(${member}, false)` : member;
}

function compileNode(node: FilterNode, ctx: CompileContext, depth: number): Expression<SqlBool> {
  if (depth > MAX_FILTER_DEPTH * 2) throw invalidFilter('Cohort filters nest too deep.');
  if (!isGroup(node)) return compileLeaf(node, ctx, depth);
  if (node.values.length === 0) return TRUE;
  // No coalesce per child: AND/OR over "unknown" is true exactly when it is with unknown read as
  // false (negations coalesce their own operand), and bare comparisons keep their indexes usable.
  const parts = node.values.map((child) => compileNode(child, ctx, depth + 1));
  return sql<SqlBool>`(${sql.join(parts, node.type === 'AND' ? sql` and ` : sql` or `)})`;
}

/** Compiles to a parameterised boolean expression (never null: an unknown comparison is false). */
export function compilePropertyFilter(node: FilterNode, ctx: CompileContext): Expression<SqlBool> {
  return sql<SqlBool>`coalesce(${compileNode(node, ctx, 1)}, false)`;
}

/**
 * The same, for a WHERE clause only (where null already counts as false): no outer coalesce, so
 * the planner can use the indexes of the columns in `ctx.columns` (e.g. the trigram index on `email`).
 * Do not negate it or select it as a value; use compilePropertyFilter for that.
 */
export function compilePropertyFilterForWhere(node: FilterNode, ctx: CompileContext): Expression<SqlBool> {
  return compileNode(node, ctx, 1);
}

/** The persons table's own columns of person properties, on `p`. */
const PERSONS_COLUMNS = new Map([
  ['email', sql.ref<string | null>('p.email')],
  ['name', sql.ref<string | null>('p.name')],
]);

/** The WHERE condition that a row `p` of `persons` matches the filter. */
export function personsWhereSql(node: FilterNode, teamId: number): Expression<SqlBool> {
  return compilePropertyFilterForWhere(node, {
    teamId,
    properties: sql.ref('p.properties'),
    personId: sql.ref('p.id'),
    columns: PERSONS_COLUMNS,
  });
}
