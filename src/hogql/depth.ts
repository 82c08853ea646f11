// How deep a parsed tree goes, counted without recursion: a chain of operators (`1 + 1 + …`, `a and
// b and …`) is parsed by a loop but compiled and printed recursively, so its length counts as depth
// like parentheses do, and a tree too deep for the stack is an error before anything walks it.
import type { Expr, Select } from './ast.ts';
import { HogQLError } from './errors.ts';

export const MAX_TREE_DEPTH = 256;

type Node = Expr | Select;

function childrenOf(node: Node): Node[] {
  switch (node.kind) {
    case 'select':
      return [
        ...node.columns.map((column) => column.expr),
        ...[node.from, ...node.joins.map((join) => join.item)].flatMap((item) =>
          item?.kind === 'subquery' ? [item.select] : [],
        ),
        ...node.joins.flatMap((join) => (join.on ? [join.on] : [])),
        ...[node.where, node.having, node.limit, node.offset].filter((expr): expr is Expr => expr !== null),
        ...node.groupBy,
        ...node.orderBy.map((item) => item.expr),
      ];
    case 'call':
      return node.args;
    case 'binary':
      return [node.left, node.right];
    case 'not':
    case 'negate':
    case 'isNull':
      return [node.operand];
    case 'in':
      return [node.operand, ...(Array.isArray(node.list) ? node.list : [node.list])];
    case 'between':
      return [node.operand, node.low, node.high];
    case 'interval':
      return [node.count];
    case 'case':
      return [
        ...node.branches.flatMap((branch) => [branch.when, branch.then]),
        ...(node.otherwise ? [node.otherwise] : []),
      ];
    case 'subquery':
      return [node.select];
    default:
      return [];
  }
}

/** Throws when the tree under `root` is deeper than MAX_TREE_DEPTH levels. */
export function checkDepth(root: Node): void {
  const stack: [Node, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [Node, number];
    if (depth > MAX_TREE_DEPTH)
      throw new HogQLError(`The query nests or chains operators deeper than ${MAX_TREE_DEPTH} levels.`, node.start);
    for (const child of childrenOf(node)) stack.push([child, depth + 1]);
  }
}
