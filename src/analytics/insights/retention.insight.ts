// The retention insight (`/insights/retention/`): one row per cohort period, its size and how many
// of its persons came back each later period, from the same relations as the retention persons
// view; each row and cell links to that view for the cohort (a cell's people are those whose
// `appearances` hold 1 at the cell's index).
import { sql, type RawBuilder } from 'kysely';
import type { ViewContext } from '../view-context.ts';
import { addInterval, formatLocal } from '../date-range.ts';
import type { RawParams } from '../params.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { parseRetentionRequest, retentionRelations, type RetentionRelations } from '../retention.ts';
import { personsUrl } from './links.ts';

export interface RetentionRow {
  date: string;
  label: string;
  values: { count: number; people_url: string }[];
  people_url: string;
}

/**
 * Rows `(cohort, r)`: each person once in each of their cohorts with r null or the cohort itself
 * (the cohort's size), and once more for each later period r they returned in. One read of each
 * person's events; the pairs come from the person's own sorted periods, not a join of everyone's.
 */
function cellsSql(spec: RetentionRelations, slice: RawBuilder<unknown>): RawBuilder<unknown> {
  const persons = spec.byPerson(slice);
  if (spec.sameEntity) {
    // The periods from the n-th on (the n-th itself counts the cohort). No `offset 0` fence: on
    // Citus a subquery with an offset is planned apart, and every person's cohorts travelled to the
    // coordinator to be paired there; without it the pairs are counted on the shards.
    return sql`select t.cohort, unnest(t.later) as r from (
        select s.cohorts[s.n] as cohort, s.cohorts[s.n:] as later
        from (select b.cohorts, generate_subscripts(b.cohorts, 1) as n from (${persons}) b) s
      ) t`;
  }
  // A null before the returns stands for the cohort itself.
  return sql`select x.cohort, x.r from (
      select c.cohort, unnest(array_prepend(null::int, c.returns)) as r from (select b.returns, unnest(b.cohorts) as cohort from (${persons}) b) c
    ) x where x.r is null or x.r > x.cohort`;
}

export async function retentionInsight(context: ViewContext, raw: RawParams): Promise<RetentionRow[]> {
  const request = await parseRetentionRequest(context, raw);
  const { total, interval } = request;
  const relations = retentionRelations(context, request);
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<{ cohort: number; r: number | null; persons: number }>`
    select x.cohort, x.r, count(*) as persons from (${cellsSql(relations, slice)}) x group by 1, 2`.execute(context.db)
      ).rows,
  );
  const counts = new Map<string, number>();
  for (const row of sumRows(parts, ['cohort', 'r'], ['persons'])) {
    const j = row.r === null ? 0 : Number(row.r) - Number(row.cohort);
    counts.set(`${row.cohort} ${j}`, Number(row.persons));
  }
  const starts = Array.from({ length: total }, (_, k) => formatLocal(addInterval(request.start, interval, k)));
  // Cohort starts are local times of the project; the wire shows the instants, in UTC.
  const instants = await sql<{ at: string }>`
    select to_char((s::timestamp at time zone ${context.timezone}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at
    from unnest(${starts}::text[]) with ordinality as u(s, n) order by n`.execute(context.db);
  const { period } = request;
  return Array.from({ length: total }, (_, k) => {
    const url = personsUrl(context.teamId, 'retention', raw, {
      date_to: formatLocal(request.dateTo),
      selected_interval: k,
      breakdown_values: undefined,
    });
    return {
      date: instants.rows[k].at,
      label: `${period} ${k}`,
      values: Array.from({ length: total - k }, (_, j) => ({ count: counts.get(`${k} ${j}`) ?? 0, people_url: url })),
      people_url: url,
    };
  });
}
