// Persons of one retention cohort with their appearances. The window ends at
// E = date_to + 1 period (midnight, except hourly) and spans total_intervals periods back.
import { sql } from 'kysely';
import type { PersonWire } from '../modules/persons/person.serializer.ts';
import type { PageRequest } from '../wire/page.ts';
import { renderActors } from './actors.ts';
import type { RawParams } from './params.ts';
import { acrossSlices } from './person-slices.ts';
import { parseRetentionRequest, retentionRelations } from './retention.ts';
import type { ViewContext } from './view-context.ts';

export interface RetentionResult {
  result: { person: PersonWire; appearances: number[] }[];
  rawCount: number;
  missing: number;
}

export async function retentionActors(
  context: ViewContext,
  raw: RawParams,
  page: PageRequest,
): Promise<RetentionResult> {
  const request = await parseRetentionRequest(context, raw);
  const { total, selected } = request;
  const { cohorts, returned } = retentionRelations(context, request);
  // Each relation once, joined by person: on Citus both are per-person rows of one shard, so the
  // join and the grouping run there (a CTE read twice became an intermediate result of every
  // cohort member, shipped to the coordinator and back).
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<{ person_id: number; periods: number[] | null; returns: number }>`
    select c.person_id, array_agg(r.period) filter (where r.period > ${selected}) as periods, count(r.period) filter (where r.period > ${selected}) as returns
    from (select c.person_id from (${cohorts(slice)}) c where c.cohort = ${selected}) c
    left join (${returned(slice)}) r on r.person_id = c.person_id
    group by c.person_id
    order by 3 desc, c.person_id
    limit ${page.offset + page.limit}`.execute(context.db)
      ).rows,
  );
  const rows = parts
    .flat()
    .sort((a, b) => Number(b.returns) - Number(a.returns) || Number(a.person_id) - Number(b.person_id))
    .slice(page.offset, page.offset + page.limit);

  const ids = rows.map((row) => Number(row.person_id));
  const { people, missing } = await renderActors(context, ids, 'query');
  const periodsOf = new Map(rows.map((row) => [Number(row.person_id), new Set((row.periods ?? []).map(Number))]));
  const result = people.map((person) => {
    const periods = periodsOf.get(person.id) ?? new Set<number>();
    const appearances = Array.from({ length: total - selected }, (_, j) =>
      j === 0 || periods.has(selected + j) ? 1 : 0,
    );
    return { person, appearances };
  });
  return { result, rawCount: ids.length, missing };
}
