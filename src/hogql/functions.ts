// The functions a HogQL query may call: each a fixed piece of SQL around its bound arguments.
// A name not listed here is an error (with the closest listed name), so no PostgreSQL function —
// pg_sleep, current_setting, set_config, pg_read_file, dblink… — is reachable.
import { sql, type RawBuilder } from 'kysely';
import { HogQLError } from './errors.ts';
import { commonType, own, typeLabel, type Compiled, type HogType } from './types.ts';

export interface FunctionContext {
  timezone: string;
  now: Date;
  start: number;
  distinct: boolean;
  name: string;
}

interface FunctionDef {
  /** Allowed argument counts. */
  arity: [number, number];
  aggregate?: boolean;
  compile(args: Compiled[], ctx: FunctionContext): Omit<Compiled, 'aggregate'>;
}

const INT_PATTERN = '^\\s*[+-]?\\d+\\s*$';
const FLOAT_PATTERN = '^\\s*[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?\\s*$';

function fail(ctx: FunctionContext, message: string): never {
  throw new HogQLError(`${ctx.name}(): ${message}`, ctx.start);
}

function needs(ctx: FunctionContext, arg: Compiled, types: HogType[], what: string, hint = ''): void {
  if (arg.type === 'null' || types.includes(arg.type)) return;
  fail(ctx, `expects ${what}, got ${typeLabel(arg.type)}.${hint}`);
}

const CONVERT_HINT = ' Convert text with toInt() or toFloat().';

/** A timestamp as the project's wall-clock time. */
export const localTime = (value: RawBuilder<unknown>, timezone: string) =>
  sql`(${value} at time zone ${timezone}::text)`;

/** A date-time value of any date-ish type; text is read as UTC unless it names its offset. */
export function asDateTime(arg: Compiled, timezone: string): RawBuilder<unknown> {
  if (arg.type === 'datetime') return arg.sql;
  if (arg.type === 'date') return sql`(${arg.sql}::timestamp at time zone ${timezone}::text)`;
  if (arg.type === 'string' && arg.constant && typeof arg.constant.value === 'string') {
    const parsed = parseDateTimeText(arg.constant.value);
    return parsed === null ? sql`null::timestamptz` : sql`${parsed}::timestamptz`;
  }
  // Text that does not look like a date-time is NULL, as the platform's toDateTime gives (not an error mid-query).
  if (arg.type === 'string')
    return sql`(case when ${arg.sql} !~ ${DATE_TIME_SQL}::text then null when ${arg.sql} ~ ${OFFSET_SQL}::text then (${arg.sql})::timestamptz else (${arg.sql})::timestamp at time zone 'UTC' end)`;
  if (arg.type === 'null') return sql`null::timestamptz`;
  if (arg.type === 'int' || arg.type === 'float') return sql`to_timestamp(${arg.sql})`;
  throw new HogQLError(`A ${typeLabel(arg.type)} is not a date-time.`, 0);
}

// The same shapes in PostgreSQL's regular expressions, for text read at run time (properties).
const DATE_TIME_SQL =
  '^\\s*\\d{4}-\\d{2}-\\d{2}([ T]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,6})?)?)?\\s*(Z|[+-]\\d{2}(:?\\d{2})?)?\\s*$';
const OFFSET_SQL = '(Z|[+-]\\d\\d(:?\\d\\d)?)\\s*$';
const DATE_SQL = '^\\s*\\d{4}-\\d{2}-\\d{2}';

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** A date-time text as an instant: UTC unless it names an offset; null when it is not one. */
export function parseDateTimeText(text: string): string | null {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone] = match;
  let offset = 'Z';
  if (zone && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    offset = `${digits.slice(0, 3)}:${digits.length > 3 ? digits.slice(3, 5) : '00'}`;
  }
  const iso = `${y}-${mo}-${d}T${h}:${mi}:${s}${frac.slice(0, 4)}${offset}`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  if (Number(mo) > 12 || Number(d) > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  return date.toISOString();
}

const TRUNC: Record<string, string> = {
  toStartOfHour: 'hour',
  toStartOfDay: 'day',
  toStartOfWeek: 'week',
  toStartOfMonth: 'month',
  toStartOfQuarter: 'quarter',
  toStartOfYear: 'year',
};

const DIFF_UNITS: Record<string, number> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800 };

function truncate(unit: string) {
  return (args: Compiled[], ctx: FunctionContext): Omit<Compiled, 'aggregate'> => {
    needs(ctx, args[0], ['datetime', 'date', 'string'], 'a date-time');
    // date_trunc in the project's time zone, then back to an instant (sql.raw: a unit from the fixed table above).
    return {
      type: 'datetime',
      sql: sql`(date_trunc(${sql.lit(unit)}, ${localTime(asDateTime(args[0], ctx.timezone), ctx.timezone)}) at time zone ${ctx.timezone}::text)`,
    };
  };
}

function sameTypes(args: Compiled[], ctx: FunctionContext): HogType {
  return commonType(args, (a, b) =>
    fail(ctx, `mixes ${typeLabel(a)} and ${typeLabel(b)}; convert one with toString(), toInt() or toFloat().`),
  );
}

function aggregateOf(name: string, numeric: boolean) {
  return (args: Compiled[], ctx: FunctionContext): Omit<Compiled, 'aggregate'> => {
    const [arg] = args;
    if (numeric) needs(ctx, arg, ['int', 'float'], 'a number', CONVERT_HINT);
    else needs(ctx, arg, ['int', 'float', 'string', 'datetime', 'date', 'uuid', 'bool'], 'a value that can be ordered');
    const distinct = ctx.distinct ? sql`distinct ` : sql``;
    if (name === 'avg') return { type: 'float', sql: sql`avg(${distinct}${arg.sql})::float8` };
    if (name === 'sum') return { type: arg.type === 'int' ? 'int' : 'float', sql: sql`sum(${distinct}${arg.sql})` };
    const fn = name === 'min' ? sql`min` : sql`max`;
    if (arg.type === 'uuid') return { type: 'uuid', sql: sql`${fn}(${arg.sql}::text)::uuid` };
    if (arg.type === 'bool') return { type: 'bool', sql: sql`${fn}(${arg.sql}::int)::boolean` };
    return { type: arg.type, sql: sql`${fn}(${arg.sql})`, nullable: arg.nullable };
  };
}

const countOf = (args: Compiled[], ctx: FunctionContext): Omit<Compiled, 'aggregate'> => {
  if (args.length === 0 || args[0].sql === STAR) return { type: 'int', unsigned: true, sql: sql`count(*)` };
  const distinct = ctx.distinct ? sql`distinct ` : sql``;
  return { type: 'int', unsigned: true, sql: sql`count(${distinct}${args[0].sql})` };
};

/** The argument `count(*)` passes. */
export const STAR = sql`*`;

const toText = (arg: Compiled): RawBuilder<unknown> => {
  if (arg.type === 'string') return arg.sql;
  if (arg.type === 'datetime') return sql`to_char(${arg.sql} at time zone 'UTC', 'YYYY-MM-DD HH24:MI:SS.US')`;
  if (arg.type === 'date') return sql`to_char(${arg.sql}, 'YYYY-MM-DD')`;
  return sql`(${arg.sql})::text`;
};

const text1 = (build: (value: RawBuilder<unknown>) => RawBuilder<unknown>, type: HogType = 'string') => ({
  arity: [1, 1] as [number, number],
  compile: (args: Compiled[], ctx: FunctionContext) => {
    needs(ctx, args[0], ['string'], 'text');
    return { type, sql: build(args[0].sql), nullable: args[0].nullable };
  },
});

export const FUNCTIONS: Record<string, FunctionDef> = {
  count: { arity: [0, 1], aggregate: true, compile: countOf },
  uniq: { arity: [1, 1], aggregate: true, compile: (args, ctx) => countOf(args, { ...ctx, distinct: true }) },
  uniqExact: { arity: [1, 1], aggregate: true, compile: (args, ctx) => countOf(args, { ...ctx, distinct: true }) },
  countIf: {
    arity: [1, 1],
    aggregate: true,
    compile: (args, ctx) => {
      needs(ctx, args[0], ['bool'], 'a condition');
      return { type: 'int', unsigned: true, sql: sql`count(case when ${args[0].sql} then 1 end)` };
    },
  },
  sumIf: {
    arity: [2, 2],
    aggregate: true,
    compile: (args, ctx) => {
      needs(ctx, args[0], ['int', 'float'], 'a number', CONVERT_HINT);
      needs(ctx, args[1], ['bool'], 'a condition as its second argument');
      return {
        type: args[0].type === 'int' ? 'int' : 'float',
        sql: sql`sum(case when ${args[1].sql} then ${args[0].sql} end)`,
      };
    },
  },
  avgIf: {
    arity: [2, 2],
    aggregate: true,
    compile: (args, ctx) => {
      needs(ctx, args[0], ['int', 'float'], 'a number', CONVERT_HINT);
      needs(ctx, args[1], ['bool'], 'a condition as its second argument');
      return { type: 'float', sql: sql`avg(case when ${args[1].sql} then ${args[0].sql} end)::float8` };
    },
  },
  sum: { arity: [1, 1], aggregate: true, compile: aggregateOf('sum', true) },
  avg: { arity: [1, 1], aggregate: true, compile: aggregateOf('avg', true) },
  min: { arity: [1, 1], aggregate: true, compile: aggregateOf('min', false) },
  max: { arity: [1, 1], aggregate: true, compile: aggregateOf('max', false) },

  now: {
    arity: [0, 0],
    compile: (_args, ctx) => ({ type: 'datetime', sql: sql`${ctx.now.toISOString()}::timestamptz` }),
  },
  today: {
    arity: [0, 0],
    compile: (_args, ctx) => ({
      type: 'date',
      sql: sql`(${ctx.now.toISOString()}::timestamptz at time zone ${ctx.timezone}::text)::date`,
    }),
  },
  yesterday: {
    arity: [0, 0],
    compile: (_args, ctx) => ({
      type: 'date',
      sql: sql`((${ctx.now.toISOString()}::timestamptz at time zone ${ctx.timezone}::text)::date - 1)`,
    }),
  },
  toDateTime: {
    arity: [1, 1],
    compile: (args, ctx) => {
      needs(
        ctx,
        args[0],
        ['datetime', 'date', 'string', 'int', 'float'],
        'a date-time, a date, text or seconds since 1970',
      );
      return { type: 'datetime', sql: asDateTime(args[0], ctx.timezone) };
    },
  },
  toDate: {
    arity: [1, 1],
    compile: (args, ctx) => {
      needs(ctx, args[0], ['datetime', 'date', 'string'], 'a date-time, a date or text');
      if (args[0].type === 'date') return args[0];
      if (args[0].type === 'string' && !args[0].constant)
        return {
          type: 'date',
          sql: sql`(case when ${args[0].sql} ~ ${DATE_SQL}::text then substr(btrim(${args[0].sql}), 1, 10)::date end)`,
        };
      return { type: 'date', sql: sql`(${localTime(asDateTime(args[0], ctx.timezone), ctx.timezone)})::date` };
    },
  },
  dateDiff: {
    arity: [3, 3],
    compile: (args, ctx) => {
      const unit = args[0].constant?.value;
      if (typeof unit !== 'string') fail(ctx, "expects a unit as its first argument ('day', 'hour', …).");
      const [from, to] = [asDateTime(args[1], ctx.timezone), asDateTime(args[2], ctx.timezone)];
      const key = unit.toLowerCase();
      const part = (value: RawBuilder<unknown>, field: string) =>
        sql`extract(${sql.raw(field)} from ${localTime(value, ctx.timezone)})`;
      if (key === 'month' || key === 'quarter' || key === 'year') {
        const months = (value: RawBuilder<unknown>) => sql`(${part(value, 'year')} * 12 + ${part(value, 'month')})`;
        const divisor = key === 'month' ? 1 : key === 'quarter' ? 3 : 12;
        const diff =
          divisor === 1
            ? sql`(${months(to)} - ${months(from)})`
            : sql`(floor((${months(to)} - 1) / ${sql.lit(divisor)}) - floor((${months(from)} - 1) / ${sql.lit(divisor)}))`;
        return { type: 'int', sql: sql`(${diff})::bigint` };
      }
      const seconds = own(DIFF_UNITS, key);
      if (seconds === undefined)
        fail(ctx, `unknown unit '${unit.slice(0, 20)}' (second, minute, hour, day, week, month, quarter, year).`);
      // Boundaries crossed: both ends truncated to the unit (in the project's time zone), then counted.
      const truncated = (value: RawBuilder<unknown>) =>
        key === 'second'
          ? sql`extract(epoch from date_trunc('second', ${value}))`
          : sql`extract(epoch from date_trunc(${sql.lit(key)}, ${localTime(value, ctx.timezone)}))`;
      return { type: 'int', sql: sql`round((${truncated(to)} - ${truncated(from)}) / ${sql.lit(seconds)})::bigint` };
    },
  },
  toInt: {
    arity: [1, 1],
    compile: (args, ctx) => {
      const [arg] = args;
      if (arg.type === 'int') return arg;
      if (arg.type === 'float') return { type: 'int', sql: sql`trunc(${arg.sql})::bigint` };
      if (arg.type === 'bool') return { type: 'int', sql: sql`(${arg.sql})::int` };
      if (arg.type === 'null') return { type: 'int', sql: sql`null::bigint` };
      needs(ctx, arg, ['string'], 'text or a number');
      // NULL when the text is not an integer, as the platform's toInt does (no error mid-query).
      return {
        type: 'int',
        sql: sql`(case when ${arg.sql} ~ ${INT_PATTERN}::text and length(trim(${arg.sql})) < 19 then trim(${arg.sql})::bigint end)`,
      };
    },
  },
  toFloat: {
    arity: [1, 1],
    compile: (args, ctx) => {
      const [arg] = args;
      if (arg.type === 'float') return arg;
      if (arg.type === 'int') return { type: 'float', sql: sql`(${arg.sql})::float8` };
      if (arg.type === 'null') return { type: 'float', sql: sql`null::float8` };
      needs(ctx, arg, ['string'], 'text or a number');
      return {
        type: 'float',
        sql: sql`(case when ${arg.sql} ~ ${FLOAT_PATTERN}::text and length(${arg.sql}) < 300 then trim(${arg.sql})::float8 end)`,
      };
    },
  },
  lower: text1((value) => sql`lower(${value})`),
  upper: text1((value) => sql`upper(${value})`),
  trim: text1((value) => sql`btrim(${value})`),
  length: {
    arity: [1, 1],
    compile: (args, ctx) => {
      needs(ctx, args[0], ['string'], 'text');
      return { type: 'int', sql: sql`char_length(${args[0].sql})` };
    },
  },
  concat: {
    arity: [1, 64],
    compile: (args) => ({ type: 'string', sql: sql`concat(${sql.join(args.map(toText))})` }),
  },
  coalesce: {
    arity: [1, 64],
    compile: (args, ctx) => ({
      type: sameTypes(args, ctx),
      sql: sql`coalesce(${sql.join(args.map((arg) => arg.sql))})`,
    }),
  },
  ifNull: {
    arity: [2, 2],
    compile: (args, ctx) => ({ type: sameTypes(args, ctx), sql: sql`coalesce(${args[0].sql}, ${args[1].sql})` }),
  },
  nullIf: {
    arity: [2, 2],
    compile: (args, ctx) => ({ type: sameTypes(args, ctx), sql: sql`nullif(${args[0].sql}, ${args[1].sql})` }),
  },
  if: {
    arity: [3, 3],
    compile: (args, ctx) => {
      needs(ctx, args[0], ['bool'], 'a condition as its first argument');
      return {
        type: sameTypes(args.slice(1), ctx),
        sql: sql`(case when ${args[0].sql} then ${args[1].sql} else ${args[2].sql} end)`,
      };
    },
  },
  isNull: { arity: [1, 1], compile: (args) => ({ type: 'bool', sql: sql`(${args[0].sql} is null)` }) },
  isNotNull: { arity: [1, 1], compile: (args) => ({ type: 'bool', sql: sql`(${args[0].sql} is not null)` }) },
  round: {
    arity: [1, 2],
    compile: (args, ctx) => {
      needs(ctx, args[0], ['int', 'float'], 'a number', CONVERT_HINT);
      const places = args[1]?.constant?.value ?? 0;
      if (typeof places !== 'number' || !Number.isInteger(places) || places < 0 || places > 15)
        fail(ctx, 'expects 0 to 15 decimal places.');
      return { type: 'float', sql: sql`round((${args[0].sql})::numeric, ${sql.lit(places)})::float8` };
    },
  },
  abs: {
    arity: [1, 1],
    compile: (args, ctx) => {
      needs(ctx, args[0], ['int', 'float'], 'a number', CONVERT_HINT);
      return { type: args[0].type, sql: sql`abs(${args[0].sql})` };
    },
  },
};

// Set apart: as a key of the literal, `toString` is typed as Object's own method.
const toStringDef: FunctionDef = {
  arity: [1, 1],
  compile: (args) => ({ type: 'string', sql: toText(args[0]), nullable: args[0].nullable }),
};
FUNCTIONS['toString'] = toStringDef;
for (const [name, unit] of Object.entries(TRUNC)) FUNCTIONS[name] = { arity: [1, 1], compile: truncate(unit) };

/** like(), ilike(), notLike() and notILike() compile as their operators. */
export const OPERATOR_FUNCTIONS: Record<string, 'like' | 'ilike' | 'not like' | 'not ilike'> = {
  like: 'like',
  ilike: 'ilike',
  notLike: 'not like',
  notILike: 'not ilike',
};

export const FUNCTION_NAMES = [...Object.keys(FUNCTIONS), ...Object.keys(OPERATOR_FUNCTIONS)];

/** The listed function of a name, whatever its letter case (count, COUNT, Count). */
export function findFunction(name: string): { canonical: string; def: FunctionDef | null } | null {
  const canonical = FUNCTION_NAMES.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (!canonical) return null;
  return { canonical, def: own(FUNCTIONS, canonical) ?? null };
}
