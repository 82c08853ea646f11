// EventsQuery: a table of this project's events from HogQL expressions — `select`, `where` and
// `orderBy` strings — plus the event name, a person, property filters and a time window. `*` is
// the whole event and `person` the person as objects; an aggregate in `select` groups by the other
// columns, one in `where` filters the groups. Newest first unless `orderBy` says otherwise.
import { sql, type RawBuilder } from 'kysely';
import { instantSql, parseDate } from '../analytics/date-range.ts';
import { validationError } from '../errors.ts';
import { compilePropertyFilter, type FilterNode } from '../filters/property-filter.ts';
import type { Column, Expr, OrderItem, Select } from '../hogql/ast.ts';
import { compileQuery, hasAggregate, MAX_LIMIT, DEFAULT_LIMIT, type Extensions } from '../hogql/compiler.ts';
import { describeError, HogQLError } from '../hogql/errors.ts';
import { parseColumn, parseExpr, parseOrderItem } from '../hogql/parser.ts';
import { printSelect } from '../hogql/printer.ts';
import { typeName, type Compiled } from '../hogql/types.ts';
import { preparePropertyFilter } from '../modules/cohorts/cohort-filters.ts';
import type { QueryAnswer } from './hogql-query.ts';
import type { QueryContext } from './query-context.ts';
import { queryFailure } from './query-errors.ts';
import { answerRows, executeCompiled } from './results.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_STRINGS = 100;

/** A list of HogQL strings of the node, each with where it starts in their joined text (for errors). */
interface Piece {
  text: string;
  attr: string;
  base: number;
}

function stringList(node: Record<string, unknown>, key: string): string[] {
  const value = node[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw validationError(`${key} must be a list of HogQL expressions (strings).`, `query.${key}`);
  if (value.length > MAX_STRINGS)
    throw validationError(`${key} takes at most ${MAX_STRINGS} expressions.`, `query.${key}`);
  return value as string[];
}

const ISO = (value: RawBuilder<unknown>) => sql`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const STAR_TYPE =
  "Tuple(uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), team_id Int64, distinct_id String, elements_chain String, created_at DateTime64(6, 'UTC'))";

/** `*` and `person` as objects; everything else is ordinary HogQL. */
function specials(teamId: number): Extensions['special'] {
  return (expr, refs) => {
    const row = refs.row;
    if (expr.kind === 'star')
      return {
        type: 'json',
        aggregate: false,
        sql: sql`jsonb_build_object('uuid', ${row}.uuid, 'event', ${row}.event, 'properties', ${row}.properties, 'timestamp', ${ISO(sql`${row}."timestamp"`)}, 'team_id', ${teamId}::integer, 'distinct_id', ${row}.distinct_id, 'elements_chain', '', 'created_at', ${ISO(sql`${row}.created_at`)}, 'person_mode', 'full')`,
      };
    if (expr.kind === 'field' && expr.chain.length === 1 && expr.chain[0] === 'person') {
      const person = refs.person();
      return {
        type: 'json',
        aggregate: false,
        sql: sql`(case when ${person}.uuid is null then jsonb_build_object('distinct_id', ${row}.distinct_id) else jsonb_build_object('uuid', ${person}.uuid, 'created_at', ${ISO(sql`${person}.created_at`)}, 'properties', ${person}.properties, 'distinct_id', ${row}.distinct_id) end)`,
      };
    }
    return null;
  };
}

function typeOf(expr: Expr, compiled: Compiled): string {
  if (expr.kind === 'star') return STAR_TYPE;
  if (expr.kind === 'field' && expr.chain.length === 1 && expr.chain[0] === 'person') return 'String';
  return typeName(compiled);
}

/** `field = value`, as the node's own filters (not the person's text) say it. */
const equals = (field: string, value: string): Expr => ({
  kind: 'binary',
  op: '=',
  left: { kind: 'field', chain: [field], start: 0 },
  right: { kind: 'literal', value, start: 0 },
  start: 0,
});

function positiveOr(value: unknown, fallback: number, attr: string): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw validationError('A whole number is required.', attr);
  return value <= 0 ? fallback : value;
}

export async function runEventsQuery(context: QueryContext, node: Record<string, unknown>): Promise<QueryAnswer> {
  const selectStrings = stringList(node, 'select');
  const select = selectStrings.length === 0 ? ['*'] : selectStrings;
  const where = stringList(node, 'where');
  const orderBy = stringList(node, 'orderBy');
  const limit = Math.min(positiveOr(node.limit, DEFAULT_LIMIT, 'query.limit'), MAX_LIMIT);
  const offset = node.offset === undefined || node.offset === null ? 0 : positiveOr(node.offset, 0, 'query.offset');

  const event = node.event;
  if (event !== undefined && event !== null && typeof event !== 'string')
    throw validationError('event must be text.', 'query.event');
  const personId = node.personId;
  if (
    personId !== undefined &&
    personId !== null &&
    !(typeof personId === 'string' && UUID.test(personId)) &&
    !(typeof personId === 'number' && Number.isSafeInteger(personId))
  )
    throw validationError('personId must be a person uuid (or its integer id).', 'query.personId');

  const conditions: ((row: RawBuilder<unknown>) => RawBuilder<unknown>)[] = [];
  const timezone = context.timezone;
  for (const [key, bound] of [
    ['after', '>'],
    ['before', '<'],
  ] as const) {
    const raw = node[key];
    if (raw !== undefined && raw !== null && typeof raw !== 'string')
      throw validationError(`${key} must be a date or a relative date (-7d).`, `query.${key}`);
    if (key === 'after' && raw === 'all') continue;
    // Defaults as the platform's: after the last 24 hours, before now + 5 s (future-dated events hidden).
    const instant =
      typeof raw === 'string' && raw !== ''
        ? instantSql(parseDate(raw, timezone, context.now, `query.${key}`).value, timezone)
        : sql`${new Date(context.now.getTime() + (key === 'after' ? -86_400_000 : 5_000)).toISOString()}::timestamptz`;
    conditions.push((row) => sql`${row}."timestamp" ${sql.raw(bound)} ${instant}`);
  }
  if (typeof personId === 'number') conditions.push((row) => sql`${row}.person_key = ${personId}::bigint`);

  let filter: FilterNode | null = null;
  for (const key of ['properties', 'fixedProperties'] as const) {
    const raw = node[key];
    if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) continue;
    try {
      const prepared = await preparePropertyFilter(context.db, context.teamId, raw);
      filter = filter ? { type: 'AND', values: [filter, prepared] } : prepared;
    } catch (error) {
      const detail = (error as { detail?: string }).detail;
      throw (error as { status?: number }).status === 400
        ? validationError(detail ?? 'Invalid property filter.', `query.${key}`)
        : error;
    }
  }
  const propertyFilter = filter;

  // Each string is parsed at its own offset in one joined text, so an error names its string.
  const pieces: Piece[] = [];
  let base = 0;
  const piece = (text: string, attr: string) => {
    const entry = { text, attr, base };
    pieces.push(entry);
    base += text.length + 1;
    return entry;
  };
  const failure = (error: unknown) => {
    if (!(error instanceof HogQLError)) return error;
    const owner = [...pieces].reverse().find((entry) => error.start >= entry.base) ?? pieces[0];
    return validationError(
      describeError(new HogQLError(error.message, error.start - owner.base), owner.text),
      owner.attr,
      'hogql_error',
    );
  };

  let compiled;
  let shown: Select;
  try {
    const columns: Column[] = select.map((text, index) =>
      parseColumn(text, piece(text, `query.select[${index}]`).base),
    );
    const conditionsHogQL = where.map((text, index) => parseExpr(text, piece(text, `query.where[${index}]`).base));
    const order: OrderItem[] = orderBy.map((text, index) =>
      parseOrderItem(text, piece(text, `query.orderBy[${index}]`).base),
    );
    const aggregated = columns.some((column) => hasAggregate(column.expr));
    const filters: Expr[] = conditionsHogQL.filter((expr) => !hasAggregate(expr));
    const havings: Expr[] = conditionsHogQL.filter((expr) => hasAggregate(expr));
    if (typeof event === 'string') filters.push(equals('event', event));
    if (typeof personId === 'string') filters.push(equals('person_id', personId));
    const and = (list: Expr[]): Expr | null =>
      list.length === 0
        ? null
        : list.reduce((left, right) => ({ kind: 'binary', op: 'and', left, right, start: right.start }));
    if (order.length === 0) {
      const firstAggregate = columns.find((column) => hasAggregate(column.expr));
      const count = columns.find((column) => select[columns.indexOf(column)].trim() === 'count()');
      const chosen = count ?? firstAggregate;
      order.push(
        chosen
          ? { expr: chosen.expr, desc: true, nulls: null }
          : { expr: { kind: 'field', chain: ['timestamp'], start: 0 }, desc: true, nulls: null },
      );
    }
    shown = {
      kind: 'select',
      start: 0,
      distinct: false,
      columns,
      from: { kind: 'table', name: 'events', alias: null, start: 0 },
      joins: [],
      where: and(filters),
      groupBy: aggregated ? columns.filter((column) => !hasAggregate(column.expr)).map((column) => column.expr) : [],
      having: and(havings),
      orderBy: order,
      limit: { kind: 'literal', value: limit, start: 0 },
      offset: offset > 0 ? { kind: 'literal', value: offset, start: 0 } : null,
    };
    compiled = compileQuery(
      shown,
      { teamId: context.teamId, timezone, now: context.now, values: {} },
      {
        special: specials(context.teamId),
        conditions: (refs) => [
          ...conditions.map((condition) => condition(refs.row)),
          ...(propertyFilter
            ? [
                sql`${compilePropertyFilter(propertyFilter, {
                  teamId: context.teamId,
                  properties: sql`${refs.row}.person_properties`,
                  eventProperties: sql`${refs.row}.properties`,
                  personId: sql`${refs.row}.person_key`,
                })}`,
              ]
            : []),
        ],
      },
    );
  } catch (error) {
    throw failure(error);
  }
  let rows: Record<string, unknown>[];
  try {
    rows = await executeCompiled(context.db, compiled.sql);
  } catch (error) {
    throw queryFailure(error, 'query');
  }
  const types = compiled.columns.map((column) => column.compiled.type);
  return {
    results: answerRows(rows.slice(0, limit), types),
    // The strings as sent (comments kept), an aliased one by its alias.
    columns: shown.columns.map((column, index) => column.alias ?? select[index]),
    types: shown.columns.map((column, index) => typeOf(column.expr, compiled.columns[index].compiled)),
    hasMore: rows.length > limit,
    limit,
    offset,
    hogql: printSelect(shown),
  };
}
