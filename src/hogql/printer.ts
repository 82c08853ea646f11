// Tree → HogQL text: the `hogql` of an answer (the query as herd understood it, keywords upper
// case, the row limit it ran with) and the names of unaliased columns.
import type { Expr, FromItem, Select } from './ast.ts';

const PLAIN_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function printString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

const printName = (name: string) =>
  PLAIN_NAME.test(name) ? name : `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

function printChain(chain: string[]): string {
  return chain
    .map((part, index) =>
      index === 0 ? printName(part) : PLAIN_NAME.test(part) ? `.${part}` : `[${printString(part)}]`,
    )
    .join('');
}

export function printExpr(expr: Expr): string {
  switch (expr.kind) {
    case 'literal':
      if (expr.value === null) return 'NULL';
      if (typeof expr.value === 'string') return printString(expr.value);
      if (typeof expr.value === 'boolean') return expr.value ? 'true' : 'false';
      return String(expr.value);
    case 'field':
      return printChain(expr.chain);
    case 'star':
      return '*';
    case 'placeholder':
      return `{${expr.name}}`;
    case 'call':
      return `${expr.name}(${expr.distinct ? 'DISTINCT ' : ''}${expr.args.map(printExpr).join(', ')})`;
    case 'binary':
      return `${printOperand(expr.left)} ${expr.op === 'and' || expr.op === 'or' || expr.op.includes('like') ? expr.op.toUpperCase() : expr.op} ${printOperand(expr.right)}`;
    case 'not':
      return `NOT ${printOperand(expr.operand)}`;
    case 'negate':
      return `-${printOperand(expr.operand)}`;
    case 'isNull':
      return `${printOperand(expr.operand)} IS ${expr.negated ? 'NOT ' : ''}NULL`;
    case 'in': {
      const list = Array.isArray(expr.list) ? expr.list.map(printExpr).join(', ') : printSelect(expr.list);
      return `${printOperand(expr.operand)} ${expr.negated ? 'NOT IN' : 'IN'} (${list})`;
    }
    case 'between':
      return `${printOperand(expr.operand)} ${expr.negated ? 'NOT ' : ''}BETWEEN ${printOperand(expr.low)} AND ${printOperand(expr.high)}`;
    case 'interval':
      return `INTERVAL ${printOperand(expr.count)} ${expr.unit.toUpperCase()}`;
    case 'case':
      return `CASE ${expr.branches.map((branch) => `WHEN ${printExpr(branch.when)} THEN ${printExpr(branch.then)}`).join(' ')}${expr.otherwise ? ` ELSE ${printExpr(expr.otherwise)}` : ''} END`;
    case 'subquery':
      return `(${printSelect(expr.select)})`;
  }
}

/** An operand that is itself an operation is parenthesized, so the printed text parses back to the same tree. */
function printOperand(expr: Expr): string {
  const compound = ['binary', 'not', 'isNull', 'in', 'between', 'negate'].includes(expr.kind);
  return compound ? `(${printExpr(expr)})` : printExpr(expr);
}

function printFrom(item: FromItem): string {
  const alias = item.alias === null ? '' : ` AS ${printName(item.alias)}`;
  return item.kind === 'table' ? `${printName(item.name)}${alias}` : `(${printSelect(item.select)})${alias}`;
}

export function printSelect(select: Select): string {
  const parts = [
    `SELECT ${select.distinct ? 'DISTINCT ' : ''}${select.columns.map((column) => `${printExpr(column.expr)}${column.alias === null ? '' : ` AS ${printName(column.alias)}`}`).join(', ')}`,
  ];
  if (select.from) parts.push(`FROM ${printFrom(select.from)}`);
  for (const join of select.joins) {
    if (join.type === 'cross') parts.push(`CROSS JOIN ${printFrom(join.item)}`);
    else
      parts.push(
        `${join.type === 'left' ? 'LEFT' : 'INNER'} JOIN ${printFrom(join.item)} ON ${printExpr(join.on as Expr)}`,
      );
  }
  if (select.where) parts.push(`WHERE ${printExpr(select.where)}`);
  if (select.groupBy.length > 0) parts.push(`GROUP BY ${select.groupBy.map(printExpr).join(', ')}`);
  if (select.having) parts.push(`HAVING ${printExpr(select.having)}`);
  if (select.orderBy.length > 0)
    parts.push(
      `ORDER BY ${select.orderBy.map((item) => `${printExpr(item.expr)} ${item.desc ? 'DESC' : 'ASC'}${item.nulls ? ` NULLS ${item.nulls.toUpperCase()}` : ''}`).join(', ')}`,
    );
  if (select.limit) parts.push(`LIMIT ${printExpr(select.limit)}`);
  if (select.offset) parts.push(`OFFSET ${printExpr(select.offset)}`);
  return parts.join(' ');
}
