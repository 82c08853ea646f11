// The tree a HogQL text parses to. Every node keeps the offset it starts at, for errors.

export type Expr =
  | { kind: 'literal'; value: string | number | boolean | null; start: number; float?: boolean }
  | { kind: 'field'; chain: string[]; start: number }
  | { kind: 'star'; start: number }
  | { kind: 'placeholder'; name: string; start: number }
  | { kind: 'call'; name: string; args: Expr[]; distinct: boolean; start: number }
  | { kind: 'binary'; op: BinaryOp; left: Expr; right: Expr; start: number }
  | { kind: 'not'; operand: Expr; start: number }
  | { kind: 'negate'; operand: Expr; start: number }
  | { kind: 'isNull'; operand: Expr; negated: boolean; start: number }
  | { kind: 'in'; operand: Expr; list: Expr[] | Select; negated: boolean; start: number }
  | { kind: 'between'; operand: Expr; low: Expr; high: Expr; negated: boolean; start: number }
  | { kind: 'interval'; count: Expr; unit: IntervalUnit; start: number }
  | { kind: 'case'; branches: { when: Expr; then: Expr }[]; otherwise: Expr | null; start: number }
  | { kind: 'subquery'; select: Select; start: number };

export type BinaryOp =
  | 'and'
  | 'or'
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'like'
  | 'ilike'
  | 'not like'
  | 'not ilike'
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '||';

export const INTERVAL_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type IntervalUnit = (typeof INTERVAL_UNITS)[number];

export interface Column {
  expr: Expr;
  alias: string | null;
}

export type FromItem =
  | { kind: 'table'; name: string; alias: string | null; start: number }
  | { kind: 'subquery'; select: Select; alias: string | null; start: number };

export interface Join {
  type: 'inner' | 'left' | 'cross';
  item: FromItem;
  on: Expr | null;
  start: number;
}

export interface OrderItem {
  expr: Expr;
  desc: boolean;
  nulls: 'first' | 'last' | null;
}

export interface Select {
  kind: 'select';
  start: number;
  distinct: boolean;
  columns: Column[];
  from: FromItem | null;
  joins: Join[];
  where: Expr | null;
  groupBy: Expr[];
  having: Expr | null;
  orderBy: OrderItem[];
  limit: Expr | null;
  offset: Expr | null;
}
