// Reading Citus plans (EXPLAIN (FORMAT JSON)): where each per-person pass runs. A window pass or a
// grouping by person runs "on the shards" when it lies inside a task's remote plan that reads the
// shard itself; it runs off the shards when it lies in the coordinator's part of the plan (the
// top plan, or a distributed subplan's) or reads its rows from `read_intermediate_result` alone
// (rows shipped from the shards and sent back). Either way per-person rows travelled: what issue
// 27 removed. A pass over the shard's events that also reads an intermediate result (a static
// cohort's members, the project's persons) is on the shards: only the persons side travelled.
// So is a grouping by person over an intermediate result alone when that result was made by a
// subplan that reads no events (a static cohort's members made unique for a semi-join): those rows
// are persons, not events. Which subplan made a result is read from the call's name, '<plan>_<j>'
// (EXPLAIN VERBOSE, which does not name the subplans themselves): the j-th subplan of the innermost
// distributed query around the task that has one (a subplan's task reads its siblings' results too).

interface PlanNode {
  'Node Type': string;
  'Function Name'?: string;
  'Function Call'?: string;
  'Relation Name'?: string;
  'Group Key'?: string[];
  Plans?: PlanNode[];
  'Distributed Query'?: {
    Subplans?: Array<{ PlannedStmt: Array<{ Plan: PlanNode }> }>;
    Job?: { Tasks?: Array<{ 'Remote Plan'?: Array<Array<{ Plan: PlanNode }>> }> };
  };
}

const isPerPersonPass = (node: PlanNode) =>
  node['Node Type'] === 'WindowAgg' ||
  (node['Node Type'] === 'Aggregate' && (node['Group Key'] ?? []).some((key) => /person_(id|key)/.test(key)));

function intermediateReads(node: PlanNode): PlanNode[] {
  if (node['Node Type'] === 'Function Scan' && node['Function Name'] === 'read_intermediate_result') return [node];
  return (node.Plans ?? []).flatMap(intermediateReads);
}

/** The nodes under `node`: its plans, and (`deep`) its distributed query's subplans and tasks' remote plans. */
function childrenOf(node: PlanNode, deep: boolean): PlanNode[] {
  const distributed = deep ? node['Distributed Query'] : undefined;
  return [
    ...(node.Plans ?? []),
    ...(distributed?.Subplans ?? []).flatMap((subplan) => subplan.PlannedStmt.map((statement) => statement.Plan)),
    ...(distributed?.Job?.Tasks ?? []).flatMap((task) => (task['Remote Plan'] ?? []).flat().map((s) => s.Plan)),
  ];
}

/** Reads a shard of `table` (`events_102008`) itself, or (`deep`) through its distributed query's tasks and subplans. */
function readsShardOf(node: PlanNode, table: string, deep: boolean): boolean {
  if (new RegExp(`^${table}_\\d+$`).test(node['Relation Name'] ?? '')) return true;
  return childrenOf(node, deep).some((child) => readsShardOf(child, table, deep));
}

const readsEventsShard = (node: PlanNode, deep = false) => readsShardOf(node, 'events', deep);

/** The subplan whose result this scan reads: the j-th of the innermost distributed query around it that has one. */
function sourceOf(scan: PlanNode, scopes: PlanNode[][]): PlanNode | undefined {
  const index = /'\d+_(\d+)'/.exec(scan['Function Call'] ?? '')?.[1];
  if (index === undefined) return undefined;
  return scopes.findLast((subplans) => subplans.length >= Number(index))?.[Number(index) - 1];
}

/** The per-person passes of `plan` that run off the shards, each described; none: all on the shards. */
export function passesOffShards(plan: unknown): string[] {
  const found: string[] = [];
  // `scopes`: the subplans of each distributed query this node lies in (their results' makers).
  const visit = (node: PlanNode, onShard: boolean, where: string, scopes: PlanNode[][]) => {
    if (isPerPersonPass(node)) {
      const what = `${node['Node Type']}${node['Group Key'] ? ` by ${node['Group Key'].join(', ')}` : ''}`;
      const reads = intermediateReads(node);
      const ofEvents = reads.some((scan) => {
        const source = sourceOf(scan, scopes);
        return source === undefined || readsEventsShard(source, true);
      });
      if (!onShard) found.push(`${what} on the coordinator (${where})`);
      else if (reads.length > 0 && ofEvents && !readsEventsShard(node))
        found.push(`${what} over read_intermediate_result (${where})`);
    }
    for (const child of node.Plans ?? []) visit(child, onShard, where, scopes);
    const distributed = node['Distributed Query'];
    if (!distributed) return;
    const inner = [...scopes, (distributed.Subplans ?? []).map((subplan) => subplan.PlannedStmt[0].Plan)];
    distributed.Subplans?.forEach((subplan, i) => {
      for (const statement of subplan.PlannedStmt) visit(statement.Plan, false, `${where} › subplan ${i + 1}`, inner);
    });
    for (const task of distributed.Job?.Tasks ?? [])
      for (const statement of (task['Remote Plan'] ?? []).flat()) visit(statement.Plan, true, `${where} › task`, inner);
  };
  for (const statement of plan as Array<{ Plan: PlanNode }>) visit(statement.Plan, false, 'plan', []);
  return found;
}

/**
 * The distributed subplans of `plan` that read a static cohort's members apart from any events: their
 * members then travel as an intermediate result to every task that reads events. None when the
 * members are read beside the events, in the same task.
 */
export function membersShipped(plan: unknown): number {
  let shipped = 0;
  const visit = (node: PlanNode) => {
    for (const subplan of node['Distributed Query']?.Subplans ?? [])
      for (const statement of subplan.PlannedStmt)
        if (readsShardOf(statement.Plan, 'cohort_people', true) && !readsEventsShard(statement.Plan, true))
          shipped += 1;
    childrenOf(node, true).forEach(visit);
  };
  for (const statement of plan as Array<{ Plan: PlanNode }>) visit(statement.Plan);
  return shipped;
}
