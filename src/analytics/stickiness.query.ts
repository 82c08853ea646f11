// Persons behind one stickiness bar: those active in exactly N distinct interval
// buckets (project timezone) of the range, for the target entity.
import { sql } from 'kysely';
import { renderActors, type ActorsResult } from './actors.ts';
import type { ViewContext } from './view-context.ts';
import { bucketSql, localSql } from './date-range.ts';
import { entityEventsSql, resolveEntity, targetEntity } from './entities.ts';
import { rangeParam, intervalParam, intParam, type RawParams } from './params.ts';
import type { PageRequest } from '../wire/page.ts';

export async function stickinessActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const entity = await resolveEntity(context, targetEntity(raw));
  const interval = intervalParam(raw);
  const days = intParam(raw, 'stickiness_days', { min: 0 }) ?? 0;
  const range = rangeParam(raw, context, interval);
  const where = await entityEventsSql(context, raw, entity, range);
  const bucket = bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval);
  const { rows } = await sql<{ person_id: number }>`
    select e.person_id
    from events e
    where ${where}
    group by e.person_id
    having count(distinct ${bucket}) = ${days}
    order by e.person_id
    limit ${page.limit} offset ${page.offset}`.execute(context.db);
  return renderActors(
    context,
    rows.map((row) => Number(row.person_id)),
    'store',
  );
}
