// Persons behind one lifecycle bar: each person's active periods in the range
// (plus one period either side) are labelled new/returning/resurrecting, and the period after a
// gap-starting one dormant; the persons with the requested label at target_date are returned.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { renderActors, type ActorsResult, type ViewContext } from './actors.ts';
import { addInterval, bucketSql, formatLocal, intervalSql, localSql, parseDate, truncate } from './date-range.ts';
import { entitiesParam, entityEventsSql, resolveEntity, type Entity } from './entities.ts';
import { rangeParam, intervalParam, stringParam, type RawParams } from './params.ts';
import type { PageRequest } from '../wire/page.ts';

export const LIFECYCLE_TYPES = ['new', 'returning', 'resurrecting', 'dormant'] as const;

async function lifecycleEntity(context: ViewContext, raw: RawParams): Promise<Entity> {
  const [first] = entitiesParam(raw);
  if (first) return resolveEntity(context, first);
  // The frontend also sends entity_id; used when no `events` list is given.
  const id = stringParam(raw, 'entity_id');
  if (id !== undefined) return { id, index: 0, math: 'total', mathProperty: null, properties: null };
  throw validationError('An entity must be provided.', 'events', 'required');
}

export async function lifecycleActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const targetRaw = stringParam(raw, 'target_date');
  if (targetRaw === undefined) throw validationError('Must include specified date', 'target_date', 'required');
  const type = stringParam(raw, 'lifecycle_type');
  if (type === undefined) throw validationError('Must include lifecycle type', 'lifecycle_type', 'required');
  if (!(LIFECYCLE_TYPES as readonly string[]).includes(type)) throw validationError(`"${type}" is not a valid choice.`, 'lifecycle_type', 'invalid_choice');
  const entity = await lifecycleEntity(context, raw);
  const interval = intervalParam(raw);
  const range = rangeParam(raw, context, interval);
  // One period before the range decides new/returning at its start; one after holds the last dormant.
  const window = {
    from: range.from ? addInterval(truncate(range.from, interval), interval, -1) : null,
    to: addInterval(truncate(new Date(range.to.getTime() - 1), interval), interval, 1),
  };
  const target = formatLocal(truncate(parseDate(targetRaw, context.timezone, context.now, 'target_date').value, interval));
  const where = await entityEventsSql(context, raw, entity, window);
  const one = intervalSql(interval);
  const targetSql = sql`${target}::timestamp`;
  const created = bucketSql(localSql(sql.ref('p.created_at'), context.timezone), interval);
  const conditions: Record<string, RawBuilder<unknown>> = {
    new: sql`m.period = ${targetSql} and m.prev is null and m.period = ${created}`,
    returning: sql`m.period = ${targetSql} and m.prev = m.period - ${one}`,
    resurrecting: sql`m.period = ${targetSql} and (m.prev is null and m.period is distinct from ${created} or m.prev < m.period - ${one})`,
    dormant: sql`m.period = ${targetSql} - ${one} and (m.next is null or m.next > ${targetSql})`,
  };
  const { rows } = await sql<{ person_id: number }>`
    with periods as (
      select distinct e.person_id, ${bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval)} as period
      from events e
      where ${where}
    ), marked as (
      select person_id, period,
        lag(period) over (partition by person_id order by period) as prev,
        lead(period) over (partition by person_id order by period) as next
      from periods
    )
    select m.person_id
    from marked m
    left join persons p on p.team_id = ${context.teamId} and p.id = m.person_id
    where ${conditions[type]}
    order by m.person_id
    limit ${page.limit} offset ${page.offset}`.execute(context.db);
  return renderActors(context, rows.map((row) => Number(row.person_id)), 'store');
}
