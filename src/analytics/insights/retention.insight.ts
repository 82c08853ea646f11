// The retention insight (`/insights/retention/`): one row per cohort period, its size and how many
// of its persons came back each later period, from the same relations as the retention persons
// view; each row and cell links to that view for the cohort (a cell's people are those whose
// `appearances` hold 1 at the cell's index).
import { sql } from 'kysely';
import type { ViewContext } from '../actors.ts';
import { addInterval, formatLocal } from '../date-range.ts';
import { stringParam, type RawParams } from '../params.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { retentionSpec } from '../retention.query.ts';
import { personsUrl } from './links.ts';

export interface RetentionRow {
  date: string;
  label: string;
  values: { count: number; people_url: string }[];
  people_url: string;
}

export async function retentionInsight(context: ViewContext, raw: RawParams): Promise<RetentionRow[]> {
  const spec = await retentionSpec(context, raw);
  const { total, interval } = spec;
  const parts = await acrossSlices(context, async (slice) => (await sql<{ cohort: number; j: number; persons: number }>`
    with c as (${spec.cohorts(slice)}), r as (${spec.sameEntity ? sql`select person_id, cohort as period from c` : spec.returned(slice)})
    select c.cohort, 0 as j, count(*) as persons from c group by c.cohort
    union all
    select c.cohort, r.period - c.cohort as j, count(*) as persons
    from c join r on r.person_id = c.person_id and r.period > c.cohort
    group by 1, 2`.execute(context.db)).rows);
  const rows = sumRows(parts, ['cohort', 'j'], ['persons']);
  const counts = new Map(rows.map((row) => [`${row.cohort} ${row.j}`, Number(row.persons)]));
  const starts = Array.from({ length: total }, (_, k) => formatLocal(addInterval(spec.start, interval, k)));
  // Cohort starts are local times of the project; the wire shows the instants, in UTC.
  const instants = await sql<{ at: string }>`
    select to_char((s::timestamp at time zone ${context.timezone}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as at
    from unnest(${starts}::text[]) with ordinality as u(s, n) order by n`.execute(context.db);
  const period = stringParam(raw, 'period') ?? 'Day';
  return Array.from({ length: total }, (_, k) => {
    const url = personsUrl(context.teamId, 'retention', raw, { date_to: formatLocal(spec.dateTo), selected_interval: k, breakdown_values: undefined });
    return {
      date: instants.rows[k].at,
      label: `${period} ${k}`,
      values: Array.from({ length: total - k }, (_, j) => ({ count: counts.get(`${k} ${j}`) ?? 0, people_url: url })),
      people_url: url,
    };
  });
}
