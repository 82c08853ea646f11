// Persons behind one stickiness bar: those active in exactly N distinct interval
// buckets (project timezone) of the range, for the target entity.
import { sql } from 'kysely';
import type { PageRequest } from '../wire/page.ts';
import { renderActors, type ActorsResult } from './actors.ts';
import { bucketSql, localSql, type Interval, type LocalRange } from './date-range.ts';
import { entityEventsSql, resolveEntity, targetEntity, type Entity } from './entities.ts';
import { eventFiltersParam, type EventFilters } from './filters.ts';
import { intervalParam, intParam, rangeParam, type RawParams } from './params.ts';
import { firstRowsByPerson } from './person-slices.ts';
import type { ViewContext } from './view-context.ts';

/** A stickiness persons request, as parsed from its parameters. */
interface StickinessPersonsRequest {
  entity: Entity;
  interval: Interval;
  /** `stickiness_days`: the number of intervals the persons were active in. */
  days: number;
  range: LocalRange;
  filters: EventFilters;
}

async function parseStickinessPersonsRequest(context: ViewContext, raw: RawParams): Promise<StickinessPersonsRequest> {
  const entity = await resolveEntity(context, targetEntity(raw));
  const interval = intervalParam(raw);
  const days = intParam(raw, 'stickiness_days', { min: 0 }) ?? 0;
  const range = rangeParam(raw, context, interval);
  return { entity, interval, days, range, filters: await eventFiltersParam(context, raw) };
}

export async function stickinessActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const { entity, interval, days, range, filters } = await parseStickinessPersonsRequest(context, raw);
  const where = entityEventsSql(context, filters, entity, range);
  const bucket = bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval);
  const rows = await firstRowsByPerson(
    context,
    page.offset + page.limit,
    async (ids, limit) =>
      (
        await sql<{ person_id: number }>`
    select e.person_key as person_id
    from events e
    where ${where} and ${ids}
    group by e.person_key
    having count(distinct ${bucket}) = ${days}
    order by e.person_key
    limit ${limit}`.execute(context.db)
      ).rows,
  );
  return renderActors(
    context,
    rows.slice(page.offset).map((row) => Number(row.person_id)),
    'store',
  );
}
