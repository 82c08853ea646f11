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

function columnsOf(spec: FunnelSpec): RawBuilder<unknown> {
  const columns: RawBuilder<unknown>[] = [];
  spec.steps.forEach((_, i) => {
    const k = i + 1;
    const reached = sql`f.steps >= ${sql.lit(k)}`;
    columns.push(sql`count(*) filter (where ${reached}) as ${sql.ref(`reached${k}`)}`);
    if (k === 1) return;
    // Unordered attempts carry no per-step times: their gaps, so their conversion times, are null.
    const gap = sql.ref(`f.gap${k}`);
    // Summed exactly (numeric): a float8 sum depends on the order of its terms, which on Citus is
    // the shards' (the mean differed from one server's in its last digits).
    columns.push(sql`sum(${gap}::numeric) filter (where ${reached}) as ${sql.ref(`gap_sum${k}`)}`);
    columns.push(sql`count(${gap}) filter (where ${reached}) as ${sql.ref(`timed${k}`)}`);
    // The gaps travel as one text (a float8's text is exact): an array of them took Node ~5x the time to parse.
    columns.push(
      sql`string_agg(${gap}::text, ',') filter (where ${reached} and ${gap} is not null) as ${sql.ref(`gaps${k}`)}`,
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

/** The step numbers of each group (key: the group's value as text, '' when ungrouped). */
export async function stepNumbers(
  context: ViewContext,
  spec: FunnelSpec,
  shape: CountShape,
): Promise<Map<string, StepNumbers & { value: string }>> {
  const n = spec.steps.length;
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
    const into = merged.get(key) ?? {
      value: row.value as string,
      counts: Array(n).fill(0),
      sums: Array(n).fill(0),
      timed: Array(n).fill(0),
      gaps: Array.from({ length: n }, (): number[] => []),
    };
    merged.set(key, into);
    for (let k = 1; k <= n; k++) {
      into.counts[k - 1] += Number(row[`reached${k}`] ?? 0);
      if (k === 1) continue;
      into.sums[k - 1] += Number(row[`gap_sum${k}`] ?? 0);
      into.timed[k - 1] += Number(row[`timed${k}`] ?? 0);
      const gaps = row[`gaps${k}`] as string | null;
      if (gaps) for (const gap of gaps.split(',')) into.gaps[k - 1].push(Number(gap));
    }
  }
  return new Map(
    [...merged.values()].map((part) => [
      String(part.value ?? ''),
      {
        value: part.value,
        counts: part.counts,
        averages: part.counts.map((_, i) => (i > 0 && part.timed[i] > 0 ? part.sums[i] / part.timed[i] : null)),
        medians: part.gaps.map((gaps, i) => (i > 0 ? median(gaps) : null)),
      },
    ]),
  );
}
