// HogQL tree → one PostgreSQL SELECT (a Kysely RawBuilder). Every literal and placeholder value is a
// bound parameter; every identifier in the SQL is herd's own (table subqueries, generated aliases
// t1…, c0…, fixed function text), never the query's; each table reference is this project's rows.
import { sql, type RawBuilder } from 'kysely';
import type { Expr, FromItem, Select } from './ast.ts';
import { HogQLError, suggestion } from './errors.ts';
import {
  asDateTime,
  findFunction,
  FUNCTION_NAMES,
  localTime,
  OPERATOR_FUNCTIONS,
  parseDateTimeText,
  STAR,
} from './functions.ts';
import { printExpr } from './printer.ts';
import { PERSON_FIELDS, personRows, TABLE_NAMES, TABLES, type TableDef } from './schema.ts';
import { commonType, isNumeric, own, typeLabel, type Compiled, type HogType } from './types.ts';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 50_000;

export interface CompileOptions {
  teamId: number;
  timezone: string;
  now: Date;
  values: Record<string, unknown>;
}

/** A column of a compiled SELECT: its name in the answer, its type and its SQL alias (c0, c1…). */
export interface OutputColumn {
  name: string;
  compiled: Compiled;
}

export interface CompiledSelect {
  sql: RawBuilder<unknown>;
  columns: OutputColumn[];
}

interface Source {
  /** What the query calls it: its alias, or the table's name. */
  name: string;
  alias: string;
  table: TableDef | null;
  /** A subquery's columns by name. */
  columns: Map<string, { index: number; compiled: Compiled }> | null;
  /** The `person` join this table needs (set while compiling). */
  needsPerson: boolean;
}

/** Shared by a query and all its subqueries: generated names and the options. */
class Unit {
  readonly options: CompileOptions;
  #aliases = 0;
  constructor(options: CompileOptions) {
    this.options = options;
  }
  nextAlias(): string {
    return `t${++this.#aliases}`;
  }
}

const ident = (name: string) => sql.raw(name);

const AGGREGATE_NAMES = new Set([
  'count',
  'uniq',
  'uniqexact',
  'countif',
  'sumif',
  'avgif',
  'sum',
  'avg',
  'min',
  'max',
]);

/** Whether an expression calls an aggregate outside any subquery. */
export function hasAggregate(expr: Expr): boolean {
  switch (expr.kind) {
    case 'call':
      return AGGREGATE_NAMES.has(expr.name.toLowerCase()) || expr.args.some(hasAggregate);
    case 'binary':
      return hasAggregate(expr.left) || hasAggregate(expr.right);
    case 'not':
    case 'negate':
    case 'isNull':
      return hasAggregate(expr.operand);
    case 'in':
      return hasAggregate(expr.operand) || (Array.isArray(expr.list) && expr.list.some(hasAggregate));
    case 'between':
      return [expr.operand, expr.low, expr.high].some(hasAggregate);
    case 'interval':
      return hasAggregate(expr.count);
    case 'case':
      return (
        expr.branches.some((branch) => hasAggregate(branch.when) || hasAggregate(branch.then)) ||
        (expr.otherwise !== null && hasAggregate(expr.otherwise))
      );
    default:
      return false;
  }
}

/** The name of an unaliased column: a plain field by its last name, anything else as printed. */
export function columnName(expr: Expr, alias: string | null): string {
  if (alias !== null) return alias;
  if (expr.kind === 'field' && expr.chain.length === 1) return expr.chain[0];
  return printExpr(expr);
}

/** The row of the first table of a top-level query, for what a caller adds (EventsQuery). */
export interface RowRefs {
  /** The row's SQL alias: its columns are the table's fields and `person_key`, `person_properties`. */
  row: RawBuilder<unknown>;
  /** The joined person's alias (`uuid`, `properties`, `created_at`), joining it. */
  person(): RawBuilder<unknown>;
}

export interface Extensions {
  /** Compiles an expression the caller gives its own meaning (EventsQuery's `*` and `person`), or null. */
  special?(expr: Expr, refs: RowRefs): Compiled | null;
  /** Conditions ANDed into WHERE. */
  conditions?(refs: RowRefs): RawBuilder<unknown>[];
}

class Scope {
  readonly unit: Unit;
  extensions: Extensions = {};
  readonly sources: Source[] = [];
  /** Column aliases of the SELECT being compiled, and the alias being compiled now (not visible to itself). */
  aliases = new Map<string, Expr>();
  hiddenAliases = new Set<string>();
  /** Where aggregates may appear. */
  aggregatesAllowed = true;
  clause = 'SELECT';

  constructor(unit: Unit) {
    this.unit = unit;
  }

  get options() {
    return this.unit.options;
  }

  // ---- sources ----

  addSource(item: FromItem): void {
    const alias = this.unit.nextAlias();
    if (item.kind === 'table') {
      const table = TABLE_NAMES.find((name) => name === item.name);
      if (!table) {
        const known = TABLE_NAMES as readonly string[];
        throw new HogQLError(`Unknown table \`${item.name.slice(0, 60)}\`.${suggestion(item.name, known)}`, item.start);
      }
      this.push(
        { name: item.alias ?? table, alias, table: TABLES[table], columns: null, needsPerson: false },
        item.start,
      );
    } else {
      const inner = compileSelectIn(this.unit, item.select, false);
      const columns = new Map<string, { index: number; compiled: Compiled }>();
      inner.columns.forEach((column, index) => columns.set(column.name, { index, compiled: column.compiled }));
      const source: Source & { sql?: RawBuilder<unknown> } = {
        name: item.alias ?? '',
        alias,
        table: null,
        columns,
        needsPerson: false,
      };
      source.sql = inner.sql;
      this.push(source, item.start);
    }
  }

  push(source: Source, start: number) {
    if (source.name !== '' && this.sources.some((other) => other.name === source.name))
      throw new HogQLError(
        `The name ${source.name.slice(0, 60)} is used twice in FROM: give one of them an alias.`,
        start,
      );
    this.sources.push(source);
  }

  fromSql(source: Source & { sql?: RawBuilder<unknown> }): RawBuilder<unknown> {
    const body = source.table ? source.table.rows(this.options.teamId) : sql`(${source.sql as RawBuilder<unknown>})`;
    const base = sql`${body} as ${ident(source.alias)}`;
    if (!source.needsPerson) return base;
    return sql`${base} left join ${personRows(this.options.teamId)} as ${ident(`${source.alias}p`)} on ${ident(`${source.alias}p`)}.person_key = ${ident(source.alias)}.person_key`;
  }

  // ---- fields ----

  resolveField(expr: Extract<Expr, { kind: 'field' }>): Compiled {
    const [first, ...rest] = expr.chain;
    if (expr.chain.length === 1 && this.aliases.has(first) && !this.hiddenAliases.has(first)) {
      const aliased = this.aliases.get(first) as Expr;
      this.hiddenAliases.add(first);
      try {
        return this.expr(aliased);
      } finally {
        this.hiddenAliases.delete(first);
      }
    }
    if (rest.length > 0) {
      const named = this.sources.find((source) => source.name === first);
      if (named) return this.fieldOf(named, rest, expr.start, true);
    }
    if (first === 'team_id') return { type: 'int', aggregate: false, sql: sql`${this.options.teamId}::integer` };
    const holders = this.sources.filter((source) => this.hasField(source, first));
    if (holders.length === 1) return this.fieldOf(holders[0], expr.chain, expr.start, false);
    if (holders.length > 1)
      throw new HogQLError(
        `The field ${first.slice(0, 60)} is ambiguous: name its table (${holders.map((source) => `${source.name || 'subquery'}.${first}`).join(' or ')}).`,
        expr.start,
      );
    const known = [
      ...new Set([
        ...this.sources.flatMap((source) => this.fieldNames(source)),
        ...this.sources.map((source) => source.name).filter(Boolean),
        ...this.aliases.keys(),
      ]),
    ];
    const where = this.sources.length === 0 ? ' (the query has no FROM)' : '';
    throw new HogQLError(
      `Unable to resolve field: ${expr.chain.join('.').slice(0, 80)}${where}.${suggestion(first, known)}`,
      expr.start,
    );
  }

  fieldNames(source: Source): string[] {
    if (source.columns) return [...source.columns.keys()];
    const table = source.table as TableDef;
    return [...Object.keys(table.fields), ...(table.person ? ['person_id', 'person'] : [])];
  }

  hasField(source: Source, name: string): boolean {
    return this.fieldNames(source).includes(name);
  }

  fieldOf(source: Source, chain: string[], start: number, qualified: boolean): Compiled {
    const [name, ...path] = chain;
    const at = ident(source.alias);
    if (source.columns) {
      const column = source.columns.get(name);
      if (!column)
        throw new HogQLError(
          `The subquery ${source.name} has no column ${name.slice(0, 60)}.${suggestion(name, [...source.columns.keys()])}`,
          start,
        );
      const compiled: Compiled = {
        ...column.compiled,
        aggregate: false,
        constant: undefined,
        sql: sql`${at}.${ident(`c${column.index}`)}`,
      };
      return path.length === 0 ? compiled : this.propertyPath(compiled, path, start, name);
    }
    const table = source.table as TableDef;
    if (name === 'team_id' && qualified)
      return { type: 'int', aggregate: false, sql: sql`${this.options.teamId}::integer` };
    if (table.person && (name === 'person' || name === 'person_id')) {
      source.needsPerson = true;
      const person = ident(`${source.alias}p`);
      if (name === 'person_id') {
        if (path.length > 0)
          throw new HogQLError('person_id has no parts: use person.properties.… for the person.', start);
        return { type: 'uuid', aggregate: false, sql: sql`${person}.uuid` };
      }
      const [field, ...inner] = path;
      if (field === undefined)
        throw new HogQLError(
          "Can't select a table when a column is expected: pick person.id, person.created_at or person.properties.….",
          start,
        );
      const type = own(PERSON_FIELDS, field);
      if (!type)
        throw new HogQLError(
          `The person has no field ${field.slice(0, 60)}.${suggestion(field, Object.keys(PERSON_FIELDS))}`,
          start,
        );
      const column = field === 'id' ? 'uuid' : field;
      const compiled: Compiled = { type, aggregate: false, sql: sql`${person}.${ident(column)}` };
      return inner.length === 0 ? compiled : this.propertyPath(compiled, inner, start, `person.${field}`);
    }
    const type = own(table.fields, name);
    if (!type)
      throw new HogQLError(
        `The table ${table.name} has no field ${name.slice(0, 60)}.${suggestion(name, this.fieldNames(source))}`,
        start,
      );
    const compiled: Compiled = {
      type,
      aggregate: false,
      sql: sql`${at}.${ident(name === 'timestamp' ? '"timestamp"' : name)}`,
    };
    return path.length === 0 ? compiled : this.propertyPath(compiled, path, start, name);
  }

  /** properties.a.b: the JSON value as text (a string unquoted), NULL when missing or null. */
  propertyPath(base: Compiled, path: string[], start: number, name: string): Compiled {
    if (base.type !== 'json')
      throw new HogQLError(`${name.slice(0, 60)} is a ${typeLabel(base.type)} and has no parts.`, start);
    let json: RawBuilder<unknown> = base.sql;
    for (const key of path.slice(0, -1)) json = sql`(${json} -> ${key}::text)`;
    return { type: 'string', nullable: true, aggregate: false, sql: sql`(${json} ->> ${path[path.length - 1]}::text)` };
  }

  // ---- expressions ----

  rowRefs(): RowRefs {
    const source = this.sources[0];
    return {
      row: ident(source.alias),
      person: () => {
        source.needsPerson = true;
        return ident(`${source.alias}p`);
      },
    };
  }

  expr(expr: Expr): Compiled {
    if (this.extensions.special && this.sources[0]?.table) {
      const special = this.extensions.special(expr, this.rowRefs());
      if (special) return special;
    }
    switch (expr.kind) {
      case 'literal':
        return literal(expr.value, expr.float === true);
      case 'placeholder':
        return this.placeholder(expr);
      case 'field':
        return this.resolveField(expr);
      case 'star':
        throw new HogQLError("'*' is only allowed as a whole column or in count(*).", expr.start);
      case 'call':
        return this.call(expr);
      case 'binary':
        return this.binary(expr);
      case 'not': {
        const operand = this.condition(expr.operand, 'NOT');
        return { type: 'bool', aggregate: operand.aggregate, sql: sql`(not ${operand.sql})` };
      }
      case 'negate': {
        const operand = this.expr(expr.operand);
        if (!isNumeric(operand.type) && operand.type !== 'interval' && operand.type !== 'null')
          throw new HogQLError(`Cannot negate a ${typeLabel(operand.type)}.`, expr.start);
        return { ...operand, constant: undefined, sql: sql`(- ${operand.sql})` };
      }
      case 'isNull': {
        const operand = this.expr(expr.operand);
        return {
          type: 'bool',
          aggregate: operand.aggregate,
          sql: expr.negated ? sql`(${operand.sql} is not null)` : sql`(${operand.sql} is null)`,
        };
      }
      case 'between': {
        const low = this.compare('>=', expr.operand, expr.low, expr.start);
        const high = this.compare('<=', expr.operand, expr.high, expr.start);
        const both = sql`(${low.sql} and ${high.sql})`;
        return {
          type: 'bool',
          aggregate: low.aggregate || high.aggregate,
          sql: expr.negated ? sql`(not ${both})` : both,
        };
      }
      case 'in':
        return this.inExpr(expr);
      case 'interval': {
        const count = this.expr(expr.count);
        if (count.type !== 'int' && count.type !== 'float')
          throw new HogQLError('An interval needs a number of units.', expr.start);
        return {
          type: 'interval',
          aggregate: count.aggregate,
          sql: sql`(${count.sql} * ${sql.lit(`1 ${expr.unit === 'quarter' ? '3 month' : expr.unit}`)}::interval)`,
        };
      }
      case 'case': {
        const branches = expr.branches.map((branch) => ({
          when: this.condition(branch.when, 'CASE WHEN'),
          then: this.expr(branch.then),
        }));
        const otherwise = expr.otherwise ? this.expr(expr.otherwise) : literal(null, false);
        const type = unify([...branches.map((branch) => branch.then), otherwise], expr.start);
        const parts = branches.map((branch) => sql`when ${branch.when.sql} then ${branch.then.sql}`);
        return {
          type,
          aggregate: [...branches.flatMap((branch) => [branch.when, branch.then]), otherwise].some(
            (part) => part.aggregate,
          ),
          sql: sql`(case ${sql.join(parts, sql` `)} else ${otherwise.sql} end)`,
        };
      }
      case 'subquery': {
        const inner = compileSelectIn(this.unit, expr.select, false);
        if (inner.columns.length !== 1)
          throw new HogQLError('A subquery used as a value must select exactly one column.', expr.start);
        return { ...inner.columns[0].compiled, aggregate: false, constant: undefined, sql: sql`(${inner.sql})` };
      }
    }
  }

  condition(expr: Expr, clause: string): Compiled {
    const compiled = this.expr(expr);
    if (compiled.type !== 'bool' && compiled.type !== 'null')
      throw new HogQLError(
        `${clause} needs a condition (true or false), not a ${typeLabel(compiled.type)}.`,
        expr.start,
      );
    return compiled;
  }

  placeholder(expr: Extract<Expr, { kind: 'placeholder' }>): Compiled {
    const { values } = this.options;
    if (!Object.hasOwn(values, expr.name)) {
      if (expr.name === 'filters') return { type: 'bool', aggregate: false, sql: sql`true` };
      const known = Object.keys(values);
      throw new HogQLError(
        `Placeholder {${expr.name.slice(0, 60)}} is not available in this context.${known.length ? ` You can use the following: ${known.slice(0, 20).join(', ')}.` : ' Pass it in "values".'}`,
        expr.start,
      );
    }
    const value = values[expr.name];
    if (Array.isArray(value))
      throw new HogQLError(`Placeholder {${expr.name}} holds a list: use it as IN {${expr.name}}.`, expr.start);
    if (value !== null && typeof value === 'object')
      throw new HogQLError(
        `Placeholder {${expr.name}} holds an object: a value must be text, a number, true, false or null.`,
        expr.start,
      );
    return literal(value as string | number | boolean | null, typeof value === 'number' && !Number.isInteger(value));
  }

  call(expr: Extract<Expr, { kind: 'call' }>): Compiled {
    const found = findFunction(expr.name);
    if (!found)
      throw new HogQLError(
        `Unknown function ${expr.name.slice(0, 60)}().${suggestion(expr.name, FUNCTION_NAMES)}`,
        expr.start,
      );
    const operator = own(OPERATOR_FUNCTIONS, found.canonical);
    if (operator) {
      if (expr.args.length !== 2) throw new HogQLError(`${found.canonical}() takes 2 arguments.`, expr.start);
      return this.binary({ kind: 'binary', op: operator, left: expr.args[0], right: expr.args[1], start: expr.start });
    }
    const def = found.def as NonNullable<typeof found.def>;
    const [min, max] = def.arity;
    if (expr.args.length < min || expr.args.length > max)
      throw new HogQLError(
        `${found.canonical}() takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, got ${expr.args.length}.`,
        expr.start,
      );
    if (expr.distinct && !['count', 'sum', 'avg', 'uniq', 'uniqExact'].includes(found.canonical))
      throw new HogQLError(`DISTINCT is not allowed in ${found.canonical}().`, expr.start);
    if (def.aggregate) {
      if (!this.aggregatesAllowed)
        throw new HogQLError(
          `Aggregate functions such as ${found.canonical}() are not allowed in ${this.clause}${this.clause === 'WHERE' ? ': use HAVING' : ''}.`,
          expr.start,
        );
      if (expr.args.some(hasAggregate))
        throw new HogQLError(`An aggregate cannot be inside another (${found.canonical}).`, expr.start);
    }
    const args = expr.args.map((arg): Compiled =>
      arg.kind === 'star' ? { type: 'null', aggregate: false, sql: STAR } : this.expr(arg),
    );
    if (args.some((arg) => arg.sql === STAR) && found.canonical !== 'count')
      throw new HogQLError(`'*' is only allowed in count(*).`, expr.start);
    const compiled = def.compile(args, {
      timezone: this.options.timezone,
      now: this.options.now,
      start: expr.start,
      distinct: expr.distinct,
      name: found.canonical,
    });
    return { ...compiled, aggregate: def.aggregate === true || args.some((arg) => arg.aggregate) };
  }

  binary(expr: Extract<Expr, { kind: 'binary' }>): Compiled {
    const { op } = expr;
    if (op === 'and' || op === 'or') {
      const left = this.condition(expr.left, op.toUpperCase());
      const right = this.condition(expr.right, op.toUpperCase());
      return {
        type: 'bool',
        aggregate: left.aggregate || right.aggregate,
        sql: sql`(${left.sql} ${sql.raw(op)} ${right.sql})`,
      };
    }
    if (op === '=' || op === '!=' || op === '<' || op === '<=' || op === '>' || op === '>=')
      return this.compare(op, expr.left, expr.right, expr.start);
    if (op.includes('like')) {
      const left = this.expr(expr.left);
      const right = this.expr(expr.right);
      for (const side of [left, right])
        if (!['string', 'uuid', 'null'].includes(side.type))
          throw new HogQLError(
            `${op.toUpperCase()} compares text, not a ${typeLabel(side.type)}; convert it with toString().`,
            expr.start,
          );
      const text = (side: Compiled) => (side.type === 'uuid' ? sql`${side.sql}::text` : side.sql);
      const keyword = { like: sql`like`, ilike: sql`ilike`, 'not like': sql`not like`, 'not ilike': sql`not ilike` }[
        op as 'like'
      ];
      return {
        type: 'bool',
        aggregate: left.aggregate || right.aggregate,
        sql: sql`(${text(left)} ${keyword} ${text(right)})`,
      };
    }
    const left = this.expr(expr.left);
    const right = this.expr(expr.right);
    const aggregate = left.aggregate || right.aggregate;
    if (op === '||') return { type: 'string', aggregate, sql: sql`concat(${left.sql}, ${right.sql})` };
    return { ...arithmetic(op, left, right, expr.start, this.options.timezone), aggregate };
  }

  compare(op: '=' | '!=' | '<' | '<=' | '>' | '>=', leftExpr: Expr, rightExpr: Expr, start: number): Compiled {
    let left = this.expr(leftExpr);
    let right = this.expr(rightExpr);
    const aggregate = left.aggregate || right.aggregate;
    // x = NULL reads as "x is null", as in HogQL.
    if ((op === '=' || op === '!=') && (left.type === 'null' || right.type === 'null')) {
      const value = left.type === 'null' ? right : left;
      return {
        type: 'bool',
        aggregate,
        sql: op === '=' ? sql`(${value.sql} is null)` : sql`(${value.sql} is not null)`,
      };
    }
    [left, right] = comparable(left, right, start, this.options.timezone);
    return { type: 'bool', aggregate, sql: sql`(${left.sql} ${sql.raw(op === '!=' ? '<>' : op)} ${right.sql})` };
  }

  inExpr(expr: Extract<Expr, { kind: 'in' }>): Compiled {
    const operand = this.expr(expr.operand);
    const not = expr.negated ? sql`not in` : sql`in`;
    if (!Array.isArray(expr.list)) {
      const inner = compileSelectIn(this.unit, expr.list, false);
      if (inner.columns.length !== 1)
        throw new HogQLError('A subquery after IN must select exactly one column.', expr.start);
      const [left] = comparable(
        operand,
        { ...inner.columns[0].compiled, sql: sql`x` },
        expr.start,
        this.options.timezone,
      );
      return { type: 'bool', aggregate: operand.aggregate, sql: sql`(${left.sql} ${not} (${inner.sql}))` };
    }
    const items: Compiled[] = [];
    for (const item of expr.list) {
      if (item.kind === 'placeholder' && Array.isArray(this.options.values[item.name])) {
        const list = this.options.values[item.name] as unknown[];
        if (list.length === 0)
          return { type: 'bool', aggregate: operand.aggregate, sql: expr.negated ? sql`true` : sql`false` };
        if (list.length > 10_000)
          throw new HogQLError(`Placeholder {${item.name}} holds more than 10000 values.`, item.start);
        for (const value of list) {
          if (value !== null && typeof value === 'object')
            throw new HogQLError(
              `Placeholder {${item.name}} holds a list of objects: values must be text, numbers, true, false or null.`,
              item.start,
            );
          items.push(
            literal(value as string | number | boolean | null, typeof value === 'number' && !Number.isInteger(value)),
          );
        }
      } else items.push(this.expr(item));
    }
    const values = items.map((item) => comparable(operand, item, expr.start, this.options.timezone)[1].sql);
    const [left] = comparable(operand, items[0], expr.start, this.options.timezone);
    return {
      type: 'bool',
      aggregate: operand.aggregate || items.some((item) => item.aggregate),
      sql: sql`(${left.sql} ${not} (${sql.join(values)}))`,
    };
  }
}

function literal(value: string | number | boolean | null, float: boolean): Compiled {
  const constant = { value };
  if (value === null) return { type: 'null', aggregate: false, sql: sql`null`, constant };
  if (typeof value === 'string') return { type: 'string', aggregate: false, sql: sql`${value}::text`, constant };
  if (typeof value === 'boolean') return { type: 'bool', aggregate: false, sql: sql`${value}::boolean`, constant };
  if (!Number.isFinite(value)) throw new HogQLError('A number must be finite.', 0);
  if (!float && Number.isInteger(value)) return { type: 'int', aggregate: false, sql: sql`${value}::bigint`, constant };
  return { type: 'float', aggregate: false, sql: sql`${value}::float8`, constant };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Brings two sides to one type for a comparison, or says why they cannot be compared. */
function comparable(left: Compiled, right: Compiled, start: number, timezone: string): [Compiled, Compiled] {
  if (left.type === right.type || left.type === 'null' || right.type === 'null') return [left, right];
  if (isNumeric(left.type) && isNumeric(right.type)) return [left, right];
  const timeish = (type: HogType) => type === 'datetime' || type === 'date';
  if (timeish(left.type) && timeish(right.type))
    return [
      { ...left, sql: asDateTime(left, timezone) },
      { ...right, sql: asDateTime(right, timezone) },
    ];
  for (const [time, text, flip] of [
    [left, right, false],
    [right, left, true],
  ] as const) {
    if (timeish(time.type) && text.type === 'string') {
      // A date-time text is read as UTC (unless it names its offset); a bad constant is an error here, not a NULL.
      if (text.constant && typeof text.constant.value === 'string' && parseDateTimeText(text.constant.value) === null)
        throw new HogQLError(
          `'${text.constant.value.slice(0, 40)}' is not a date-time (YYYY-MM-DD or YYYY-MM-DD HH:MM:SS).`,
          start,
        );
      const pair: [Compiled, Compiled] = [
        { ...time, sql: asDateTime(time, timezone) },
        { ...text, sql: asDateTime(text, timezone) },
      ];
      return flip ? [pair[1], pair[0]] : pair;
    }
    if (time.type === 'uuid' && text.type === 'string') {
      const constant = text.constant?.value;
      const pair: [Compiled, Compiled] =
        typeof constant === 'string' && UUID.test(constant)
          ? [time, { ...text, sql: sql`${constant}::uuid` }]
          : [{ ...time, sql: sql`${time.sql}::text` }, text];
      return flip ? [pair[1], pair[0]] : pair;
    }
  }
  const hint =
    (left.type === 'string' && isNumeric(right.type)) || (right.type === 'string' && isNumeric(left.type))
      ? ' A property is text: convert it with toInt() or toFloat().'
      : left.type === 'json' || right.type === 'json'
        ? ' Compare one of its properties (properties.key) instead.'
        : '';
  throw new HogQLError(`Cannot compare ${typeLabel(left.type)} with ${typeLabel(right.type)}.${hint}`, start);
}

function arithmetic(
  op: string,
  left: Compiled,
  right: Compiled,
  start: number,
  timezone: string,
): Omit<Compiled, 'aggregate'> {
  const operator = sql.raw(op);
  if (left.type === 'null' || right.type === 'null') return { type: 'null', sql: sql`null` };
  if (isNumeric(left.type) && isNumeric(right.type)) {
    // `/` divides as decimals (ClickHouse's rule); by zero it gives NULL rather than an error.
    if (op === '/') return { type: 'float', sql: sql`((${left.sql})::float8 / nullif((${right.sql})::float8, 0))` };
    if (op === '%')
      return {
        type: left.type === 'int' && right.type === 'int' ? 'int' : 'float',
        sql: sql`(${left.sql} % nullif(${right.sql}, 0))`,
      };
    return {
      type: left.type === 'int' && right.type === 'int' ? 'int' : 'float',
      sql: sql`(${left.sql} ${operator} ${right.sql})`,
    };
  }
  const timeish = (type: HogType) => type === 'datetime' || type === 'date';
  if ((op === '+' || op === '-') && timeish(left.type) && right.type === 'interval')
    return { type: 'datetime', sql: sql`(${asDateTime(left, timezone)} ${operator} ${right.sql})` };
  if (op === '+' && left.type === 'interval' && timeish(right.type))
    return { type: 'datetime', sql: sql`(${asDateTime(right, timezone)} + ${left.sql})` };
  if (op === '-' && timeish(left.type) && timeish(right.type)) {
    if (left.type === 'date' && right.type === 'date') return { type: 'int', sql: sql`(${left.sql} - ${right.sql})` };
    return {
      type: 'int',
      sql: sql`extract(epoch from (${asDateTime(left, timezone)} - ${asDateTime(right, timezone)}))::bigint`,
    };
  }
  if (op === '*' && left.type === 'interval' && isNumeric(right.type))
    return { type: 'interval', sql: sql`(${left.sql} * ${right.sql})` };
  if ((op === '+' || op === '-') && left.type === 'interval' && right.type === 'interval')
    return { type: 'interval', sql: sql`(${left.sql} ${operator} ${right.sql})` };
  const text = left.type === 'string' || right.type === 'string';
  throw new HogQLError(
    `Cannot apply ${op} to ${typeLabel(left.type)} and ${typeLabel(right.type)}.${text ? ' A property is text: convert it with toInt() or toFloat() (or join text with concat()).' : ''}`,
    start,
  );
}

function unify(parts: Compiled[], start: number): HogType {
  return commonType(parts, (a, b) => {
    throw new HogQLError(`The branches mix ${typeLabel(a)} and ${typeLabel(b)}.`, start);
  });
}

/** A constant non-negative integer (LIMIT, OFFSET), from a literal or a placeholder. */
function constantCount(scope: Scope, expr: Expr, clause: string): number {
  const compiled = scope.expr(expr);
  const value = compiled.constant?.value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
    throw new HogQLError(`${clause} needs a whole number of rows (0 or more).`, expr.start);
  return value;
}

/** A positional reference (GROUP BY 1, ORDER BY 2) to a selected column. */
function positional(select: Select, expr: Expr, clause: string): Expr {
  if (expr.kind !== 'literal' || typeof expr.value !== 'number') return expr;
  const column = select.columns[expr.value - 1];
  if (!Number.isInteger(expr.value) || !column || column.expr.kind === 'star')
    throw new HogQLError(
      `${clause} ${expr.value} names no selected column (1 to ${select.columns.length}).`,
      expr.start,
    );
  return column.expr;
}

export interface TopLevel {
  /** The rows to fetch: the limit to report, plus one to know whether there are more. */
  limit: number;
  offset: number;
}

function compileSelectIn(
  unit: Unit,
  select: Select,
  top: boolean,
  extensions: Extensions = {},
): CompiledSelect & { page?: TopLevel } {
  const scope = new Scope(unit);
  if (select.from) scope.addSource(select.from);
  for (const join of select.joins) scope.addSource(join.item);
  scope.extensions = extensions;

  const joinConditions = select.joins.map((join) => {
    if (!join.on) return null;
    scope.aggregatesAllowed = false;
    scope.clause = 'JOIN … ON';
    return scope.condition(join.on, 'ON').sql;
  });

  // Column aliases may be used by the other clauses (as in ClickHouse): each is compiled where used.
  for (const column of select.columns) if (column.alias !== null) scope.aliases.set(column.alias, column.expr);

  scope.aggregatesAllowed = true;
  scope.clause = 'SELECT';
  const columns: OutputColumn[] = [];
  const columnSql: RawBuilder<unknown>[] = [];
  for (const column of select.columns) {
    if (column.expr.kind === 'star' && !(extensions.special && scope.sources[0]?.table)) {
      if (scope.sources.length === 0) throw new HogQLError('SELECT * needs a FROM.', column.expr.start);
      for (const source of scope.sources) {
        const names = source.table ? source.table.star : [...(source.columns as Map<string, unknown>).keys()];
        for (const name of names) {
          const compiled = scope.fieldOf(source, [name], column.expr.start, true);
          columnSql.push(sql`${compiled.sql} as ${ident(`c${columns.length}`)}`);
          columns.push({ name, compiled });
        }
      }
      continue;
    }
    if (column.alias !== null) scope.hiddenAliases.add(column.alias);
    const compiled = scope.expr(column.expr);
    if (column.alias !== null) scope.hiddenAliases.delete(column.alias);
    if (compiled.type === 'interval')
      throw new HogQLError('An interval can only be added to or taken from a date-time.', column.expr.start);
    // A date leaves the database as its text (YYYY-MM-DD): no driver's idea of local midnight.
    const value = top && compiled.type === 'date' ? sql`to_char(${compiled.sql}, 'YYYY-MM-DD')` : compiled.sql;
    columnSql.push(sql`${value} as ${ident(`c${columns.length}`)}`);
    columns.push({ name: columnName(column.expr, column.alias), compiled });
  }

  scope.aggregatesAllowed = false;
  scope.clause = 'WHERE';
  const conditions = select.where ? [scope.condition(select.where, 'WHERE').sql] : [];
  if (extensions.conditions && scope.sources[0]?.table) conditions.push(...extensions.conditions(scope.rowRefs()));
  const where = conditions.length > 0 ? sql.join(conditions, sql` and `) : null;
  scope.clause = 'GROUP BY';
  const groupBy = select.groupBy.map((expr) => scope.expr(positional(select, expr, 'GROUP BY')).sql);
  scope.aggregatesAllowed = true;
  const having = select.having ? scope.condition(select.having, 'HAVING').sql : null;
  const orderBy = select.orderBy.map((item) => {
    const compiled = scope.expr(positional(select, item.expr, 'ORDER BY'));
    if (compiled.type === 'json')
      throw new HogQLError('Cannot order by a whole JSON object: order by one of its properties.', item.expr.start);
    const nulls = item.nulls === 'first' ? sql` nulls first` : item.nulls === 'last' ? sql` nulls last` : sql``;
    return sql`${compiled.sql} ${item.desc ? sql`desc` : sql`asc`}${nulls}`;
  });

  let limit: number | null = select.limit ? constantCount(scope, select.limit, 'LIMIT') : null;
  const offset = select.offset ? constantCount(scope, select.offset, 'OFFSET') : 0;
  let page: TopLevel | undefined;
  if (top) {
    limit = Math.min(limit ?? DEFAULT_LIMIT, MAX_LIMIT);
    page = { limit, offset };
  } else if (limit !== null) limit = Math.min(limit, MAX_LIMIT);

  const from: RawBuilder<unknown>[] = [];
  scope.sources.forEach((source, index) => {
    const item = scope.fromSql(source);
    if (index === 0) from.push(item);
    else {
      const join = select.joins[index - 1];
      if (join.type === 'cross') from.push(sql`cross join ${item}`);
      else
        from.push(
          sql`${join.type === 'left' ? sql`left join` : sql`join`} ${item} on ${joinConditions[index - 1] as RawBuilder<unknown>}`,
        );
    }
  });

  const parts: RawBuilder<unknown>[] = [sql`select ${select.distinct ? sql`distinct ` : sql``}${sql.join(columnSql)}`];
  if (from.length > 0) parts.push(sql`from ${sql.join(from, sql` `)}`);
  if (where) parts.push(sql`where ${where}`);
  if (groupBy.length > 0) parts.push(sql`group by ${sql.join(groupBy)}`);
  if (having) parts.push(sql`having ${having}`);
  if (orderBy.length > 0) parts.push(sql`order by ${sql.join(orderBy)}`);
  // One row past the page tells whether there are more.
  const fetch = page ? page.limit + 1 : limit;
  if (fetch !== null) parts.push(sql`limit ${fetch}::bigint`);
  if (offset > 0) parts.push(sql`offset ${offset}::bigint`);
  return { sql: sql.join(parts, sql` `), columns, page };
}

/** Compiles a whole query; the SQL fetches one row more than `page.limit`. */
export function compileQuery(
  select: Select,
  options: CompileOptions,
  extensions: Extensions = {},
): CompiledSelect & { page: TopLevel } {
  return compileSelectIn(new Unit(options), select, true, extensions) as CompiledSelect & { page: TopLevel };
}

export { localTime };
