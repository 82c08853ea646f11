// Turns the person ids an analytical query chose for a page into Person objects, counting those
// the events point to that no longer exist (deleted) as `missing_persons`.
import { sql, type RawBuilder } from 'kysely';
import { serializePerson, type PersonRecord, type PersonWire } from '../modules/persons/person.serializer.ts';
import { loadPersons } from '../modules/persons/persons.repository.ts';
import type { PageRequest } from '../wire/page.ts';
import { acrossPersonSlices, slicePersonsSql } from './person-slices.ts';
import type { ViewContext } from './view-context.ts';

export interface ActorsResult {
  people: PersonWire[];
  /** Ids the query returned for the page, before dropping missing persons (PostHog's has-more rule). */
  rawCount: number;
  missing: number;
}

/**
 * `order`: `query` keeps the analytics query's order (trends by value, retention);
 * `store` renders the page in persons-store order, created_at DESC then uuid (as PostHog's persons API of 2022–2024 does).
 */
export async function renderActors(
  context: ViewContext,
  personIds: number[],
  order: 'query' | 'store',
): Promise<ActorsResult> {
  const persons = await loadPersons(context.db, context.teamId, personIds);
  if (order === 'store') persons.sort(storeOrder);
  return {
    people: persons.map(serializePerson),
    rawCount: personIds.length,
    missing: personIds.length - persons.length,
  };
}

/**
 * A page of the person ids a selection (`select person_id …`, built for each person slice) yields,
 * by person uuid; ids of persons that no longer exist come last.
 */
export async function selectPersonsByUuid(
  context: ViewContext,
  selection: (slice: RawBuilder<unknown>) => RawBuilder<unknown>,
  page: PageRequest,
): Promise<number[]> {
  // The selection first (on Citus, a pass on the shards), its person ids sent once to the persons'
  // shard and joined there, not the slice's persons sent to every events shard; the slice's
  // condition on p.id too, so the join reads the slice's persons, not the project's.
  const parts = await acrossPersonSlices(
    context,
    async (slice, persons) =>
      (
        await sql<{ person_id: number; uuid: string | null }>`
    -- A subquery: a selection's own distinct at the top of a statement was done again on the coordinator.
    with selected as materialized (select s.person_id from (${selection(slice)}) s)
    select s.person_id, p.uuid
    from selected s
    left join (${slicePersonsSql(context.teamId, sql`p.uuid`, persons)}) p on p.id = s.person_id
    order by p.uuid nulls last, s.person_id
    limit ${page.offset + page.limit}`.execute(context.db)
      ).rows,
  );
  const rows = parts
    .flat()
    .sort((a, b) =>
      a.uuid === b.uuid
        ? Number(a.person_id) - Number(b.person_id)
        : a.uuid === null
          ? 1
          : b.uuid === null
            ? -1
            : a.uuid < b.uuid
              ? -1
              : 1,
    );
  return rows.slice(page.offset, page.offset + page.limit).map((row) => Number(row.person_id));
}

function storeOrder(a: PersonRecord, b: PersonRecord): number {
  const time = b.created_at.getTime() - a.created_at.getTime();
  if (time !== 0) return time;
  return a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0;
}
