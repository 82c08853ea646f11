// A funnel's numbers per step, added up over the person slices (person-slices.ts): how many persons
// reached each step, and the seconds between the first time each of them reached the step before
// and the first time they reached it (mean, and median over the gaps of every slice).
import { sql, type RawBuilder } from 'kysely';
import type { ViewContext } from '../view-context.ts';
import { funnelReachSql } from '../funnel-reach.ts';
import type { FunnelSpec } from '../funnel-request.ts';
import type { FunnelScan } from '../funnel-steps.ts';
import { acrossSlices } from '../person-slices.ts';

export interface StepNumbers {
  /** Persons reaching each step. */
  counts: number[];
  averages: (number | null)[];
  medians: (number | null)[];
}

/**
 * What to count: rows `f` of funnelReachSql joined or narrowed as needed, grouped by `group`.
 * Per step k the counts are named `reached{k}` (persons), `gap_sum{k}`, `timed{k}` and `gaps{k}`.
 */
export type CountShape = (
  persons: RawBuilder<unknown>,
  scan: FunnelScan,
) => { from: RawBuilder<unknown>; group: RawBuilder<unknown> };

/** One group's sums over the slices read so far. */
interface StepSums {
  counts: number[];
  sums: number[];
  timed: number[];
  gaps: number[][];
}

/**
 * Per step k: `reached{k}{suffix}` (persons), `gap_sum{k}{suffix}`, `timed{k}{suffix}` and
 * `gaps{k}{suffix}`, over the rows `f` that meet `within` (null: every row).
 */
function columnsOf(spec: FunnelSpec, within: RawBuilder<unknown> | null = null, suffix = ''): RawBuilder<unknown> {
  const columns: RawBuilder<unknown>[] = [];
  spec.steps.forEach((_, i) => {
    const k = i + 1;
    const reached = within ? sql`f.steps >= ${sql.lit(k)} and ${within}` : sql`f.steps >= ${sql.lit(k)}`;
    columns.push(sql`count(*) filter (where ${reached}) as ${sql.ref(`reached${k}${suffix}`)}`);
    if (k === 1) return;
    // Unordered attempts carry no per-step times: their gaps, so their conversion times, are null.
    const gap = sql.ref(`f.gap${k}`);
    // Summed exactly (numeric): a float8 sum depends on the order of its terms, which on Citus is
    // the shards' (the mean differed from one server's in its last digits).
    columns.push(sql`sum(${gap}::numeric) filter (where ${reached}) as ${sql.ref(`gap_sum${k}${suffix}`)}`);
    columns.push(sql`count(${gap}) filter (where ${reached}) as ${sql.ref(`timed${k}${suffix}`)}`);
    // The gaps travel as one text (a float8's text is exact): an array of them took Node ~5x the time to parse.
    columns.push(
      sql`string_agg(${gap}::text, ',') filter (where ${reached} and ${gap} is not null) as ${sql.ref(`gaps${k}${suffix}`)}`,
    );
  });
  return sql.join(columns);
}

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function emptySums(n: number): StepSums {
  return {
    counts: Array(n).fill(0),
    sums: Array(n).fill(0),
    timed: Array(n).fill(0),
    gaps: Array.from({ length: n }, (): number[] => []),
  };
}

/** Adds one slice's row (its columns named with `suffix`) to `into`. */
function addRow(into: StepSums, row: Record<string, unknown>, suffix: string): void {
  for (let k = 1; k <= into.counts.length; k++) {
    into.counts[k - 1] += Number(row[`reached${k}${suffix}`] ?? 0);
    if (k === 1) continue;
    into.sums[k - 1] += Number(row[`gap_sum${k}${suffix}`] ?? 0);
    into.timed[k - 1] += Number(row[`timed${k}${suffix}`] ?? 0);
    const gaps = row[`gaps${k}${suffix}`] as string | null;
    if (gaps) for (const gap of gaps.split(',')) into.gaps[k - 1].push(Number(gap));
  }
}

function numbersOf(part: StepSums): StepNumbers {
  return {
    counts: part.counts,
    averages: part.counts.map((_, i) => (i > 0 && part.timed[i] > 0 ? part.sums[i] / part.timed[i] : null)),
    medians: part.gaps.map((gaps, i) => (i > 0 ? median(gaps) : null)),
  };
}

/** The step numbers of each group (key: the group's value as text, '' when ungrouped). */
export async function stepNumbers(
  context: ViewContext,
  spec: FunnelSpec,
  shape: CountShape,
): Promise<Map<string, StepNumbers & { value: string }>> {
  const parts = await acrossSlices(context, async (slice) => {
    const scan = { slice };
    const { from, group } = shape(funnelReachSql(context, spec, scan), scan);
    return (
      await sql<Record<string, unknown>>`select ${group} as value, ${columnsOf(spec)} from ${from} group by 1`.execute(
        context.db,
      )
    ).rows;
  });
  const merged = new Map<string, StepSums & { value: string }>();
  for (const row of parts.flat()) {
    const key = JSON.stringify(row.value);
    const into = merged.get(key) ?? { value: row.value as string, ...emptySums(spec.steps.length) };
    merged.set(key, into);
    addRow(into, row, '');
  }
  return new Map(
    [...merged.values()].map((part) => [String(part.value ?? ''), { value: part.value, ...numbersOf(part) }]),
  );
}

/**
 * The step numbers of the rows `f` meeting each of the `count` conditions `within` (which may overlap, as a
 * cohort's members and everyone do; null: every row), counted in one pass over the funnel's persons: a group per
 * condition would run the whole funnel once for each.
 */
export async function stepNumbersWithin(
  context: ViewContext,
  spec: FunnelSpec,
  count: number,
  shape: (
    persons: RawBuilder<unknown>,
    scan: FunnelScan,
  ) => { from: RawBuilder<unknown>; within: (RawBuilder<unknown> | null)[] },
): Promise<StepNumbers[]> {
  const rows = await acrossSlices(context, async (slice) => {
    const scan = { slice };
    const { from, within } = shape(funnelReachSql(context, spec, scan), scan);
    if (within.length !== count) throw new Error(`${within.length} conditions for ${count} groups`);
    const columns = within.map((condition, i) => columnsOf(spec, condition, `_${i}`));
    return (await sql<Record<string, unknown>>`select ${sql.join(columns)} from ${from}`.execute(context.db)).rows;
  });
  return Array.from({ length: count }, (_, i) => {
    const into = emptySums(spec.steps.length);
    for (const row of rows.flat()) addRow(into, row, `_${i}`);
    return numbersOf(into);
  });
}
