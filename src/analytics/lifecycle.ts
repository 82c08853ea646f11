// What a lifecycle request is (the entity, the interval, the range and the filters) and the
// relation the persons view and the insight share: each person's active periods over the range
// (plus one period either side), beside their neighbours, and the status that gives each period.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import {
  addInterval,
  bucketSql,
  intervalSql,
  localSql,
  truncate,
  type Interval,
  type LocalRange,
} from './date-range.ts';
import { entitiesParam, entityEventsSql, resolveEntity, type Entity } from './entities.ts';
import { eventFiltersParam, type EventFilters } from './filters.ts';
import { intervalParam, rangeParam, stringParam, type RawParams } from './params.ts';
import type { ViewContext } from './view-context.ts';
import { projectPersonsSql } from './person-slices.ts';

export const LIFECYCLE_TYPES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

/** A lifecycle request (the persons view's and the insight's), as parsed from its parameters. */
export interface LifecycleRequest {
  entity: Entity;
  interval: Interval;
  range: LocalRange;
  /** The periods read: the range with one period before it and one after (`from` null: since the first event). */
  window: { from: Date | null; to: Date };
  filters: EventFilters;
}

async function lifecycleEntity(context: ViewContext, raw: RawParams): Promise<Entity> {
  const [first] = entitiesParam(raw);
  if (first) return resolveEntity(context, first);
  // The frontend also sends entity_id; used when no `events` list is given.
  const id = stringParam(raw, 'entity_id');
  if (id !== undefined) return { id, index: 0, math: 'total', mathProperty: null, properties: null };
  throw validationError('An entity must be provided.', 'events', 'required');
}

export async function parseLifecycleRequest(context: ViewContext, raw: RawParams): Promise<LifecycleRequest> {
  const entity = await lifecycleEntity(context, raw);
  const interval = intervalParam(raw);
  const range = rangeParam(raw, context, interval);
  // One period before the range decides new/returning at its start; one after holds the last dormant.
  const window = {
    from: range.from ? addInterval(truncate(range.from, interval), interval, -1) : null,
    to: addInterval(truncate(new Date(range.to.getTime() - 1), interval), interval, 1),
  };
  return { entity, interval, range, window, filters: await eventFiltersParam(context, raw) };
}

/** The conditions on an event row `e` of the entity over the window. */
export function lifecycleWhereSql(context: ViewContext, request: LifecycleRequest): RawBuilder<unknown> {
  return entityEventsSql(context, request.filters, request.entity, request.window);
}

/**
 * Rows `(person_id, period, prev, next, created)`: each active period of each person of a slice,
 * beside its neighbours. `created` (the person's creation period) only when `withCreated`: only
 * the new and resurrecting statuses read it, and on Citus it is a join with the project's persons,
 * sent to every shard task.
 */
export function markedPeriodsSql(
  context: ViewContext,
  request: LifecycleRequest,
  slice: RawBuilder<unknown>,
  withCreated = true,
): RawBuilder<unknown> {
  const { interval } = request;
  const created = withCreated
    ? bucketSql(localSql(sql.ref('p.created_at'), context.timezone), interval)
    : sql`null::timestamp`;
  const persons = withCreated
    ? sql`left join (${projectPersonsSql(context.teamId, sql`created_at`)}) p on p.id = m.person_id`
    : sql``;
  return sql`
    select m.person_id, m.period, m.prev, m.next, ${created} as created
    from (
      select person_id, period,
        lag(period) over (partition by person_id order by period) as prev,
        lead(period) over (partition by person_id order by period) as next
      from (
        select distinct e.person_key as person_id, ${bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval)} as period
        from events e
        where ${lifecycleWhereSql(context, request)} and ${slice}
      ) periods
    ) m
    ${persons}`;
}

/** Whether the status reads the person's creation period (markedPeriodsSql's `created`). */
export function statusReadsCreated(type: LifecycleType): boolean {
  return type === 'new' || type === 'resurrecting';
}

/** The condition on a marked-periods row `m` that its person has the status at period `target`. */
export function statusSql(interval: Interval, type: LifecycleType, target: RawBuilder<unknown>): RawBuilder<unknown> {
  const one = intervalSql(interval);
  if (type === 'new') return sql`m.period = ${target} and m.prev is null and m.period = m.created`;
  if (type === 'returning') return sql`m.period = ${target} and m.prev = m.period - ${one}`;
  if (type === 'resurrecting')
    return sql`m.period = ${target} and (m.prev is null and m.period is distinct from m.created or m.prev < m.period - ${one})`;
  return sql`m.period = ${target} - ${one} and (m.next is null or m.next > ${target})`;
}
