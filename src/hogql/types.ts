// The types a HogQL expression has in herd, what PostgreSQL sees and what the answer reports.
import type { RawBuilder } from 'kysely';

export type HogType = 'string' | 'int' | 'float' | 'bool' | 'datetime' | 'date' | 'uuid' | 'json' | 'null' | 'interval';

/** A compiled expression: its SQL (values bound), its type, and whether it aggregates rows. */
export interface Compiled {
  sql: RawBuilder<unknown>;
  type: HogType;
  aggregate: boolean;
  /** A property read: text that may be missing. */
  nullable?: boolean;
  /** count() and friends: never negative. */
  unsigned?: boolean;
  /** The constant a literal or placeholder holds (for typing a date-time string, a limit, a unit). */
  constant?: { value: unknown };
}

export const isNumeric = (type: HogType) => type === 'int' || type === 'float';

/** The name the answer's `types` give a column, in ClickHouse's spelling as the platform reports it. */
export function typeName(compiled: Pick<Compiled, 'type' | 'nullable' | 'unsigned'>): string {
  switch (compiled.type) {
    case 'string':
      return compiled.nullable ? 'Nullable(String)' : 'String';
    case 'int':
      return compiled.unsigned ? 'UInt64' : 'Int64';
    case 'float':
      return 'Float64';
    case 'bool':
      return 'Bool';
    case 'datetime':
      return "DateTime64(6, 'UTC')";
    case 'date':
      return 'Date';
    case 'uuid':
      return 'UUID';
    case 'json':
      return 'JSON';
    case 'null':
      return 'Nullable(Nothing)';
    case 'interval':
      return 'Interval';
  }
}

/** How a type is named in an error message. */
export function typeLabel(type: HogType): string {
  return typeName({ type });
}

/** A record's own entry for a name from the query: never Object's (`toString`, `constructor`…). */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The one type several values share (integers and decimals make decimals; NULL fits any); `mixed` says why not. */
export function commonType(
  parts: readonly Pick<Compiled, 'type'>[],
  mixed: (a: HogType, b: HogType) => never,
): HogType {
  let type: HogType = 'null';
  for (const part of parts) {
    if (part.type === 'null' || part.type === type) continue;
    if (type === 'null') type = part.type;
    else if (isNumeric(type) && isNumeric(part.type)) type = 'float';
    else mixed(type, part.type);
  }
  return type;
}
