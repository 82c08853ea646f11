// Persons behind one lifecycle bar: each person's active periods in the range
// (plus one period either side) are labelled new/returning/resurrecting, and the period after a
// gap-starting one dormant; the persons with the requested label at target_date are returned.
import { sql, type RawBuilder } from 'kysely';
import { validationError } from '../errors.ts';
import { renderActors, type ActorsResult } from './actors.ts';
import type { ViewContext } from './view-context.ts';
import { acrossSlices } from './person-slices.ts';
import {
  addInterval,
  bucketSql,
  formatLocal,
  intervalSql,
  localSql,
  parseDate,
  truncate,
  type Interval,
  type LocalRange,
} from './date-range.ts';
import { entitiesParam, entityEventsSql, resolveEntity, type Entity } from './entities.ts';
import { rangeParam, intervalParam, stringParam, type RawParams } from './params.ts';
import type { PageRequest } from '../wire/page.ts';

export const LIFECYCLE_TYPES = ['new', 'returning', 'resurrecting', 'dormant'] as const;
export type LifecycleType = (typeof LIFECYCLE_TYPES)[number];

async function lifecycleEntity(context: ViewContext, raw: RawParams): Promise<Entity> {
  const [first] = entitiesParam(raw);
  if (first) return resolveEntity(context, first);
  // The frontend also sends entity_id; used when no `events` list is given.
  const id = stringParam(raw, 'entity_id');
  if (id !== undefined) return { id, index: 0, math: 'total', mathProperty: null, properties: null };
  throw validationError('An entity must be provided.', 'events', 'required');
}

export interface LifecycleSpec {
  entity: Entity;
  interval: Interval;
  range: LocalRange;
  /** The periods read: the range with one period before it and one after (`from` null: since the first event). */
  window: { from: Date | null; to: Date };
  /** The conditions on an event row `e` of the entity over the window. */
  where: RawBuilder<unknown>;
  /** Rows `(person_id, period, prev, next, created)`: each active period of each person of a slice, beside its neighbours. */
  marked(slice: RawBuilder<unknown>): RawBuilder<unknown>;
  /** The condition on a `marked` row `m` that its person has the status at period `target`. */
  status(type: LifecycleType, target: RawBuilder<unknown>): RawBuilder<unknown>;
}

/** The lifecycle of every person over the request's range: shared by the persons view and the insight. */
export async function lifecycleSpec(context: ViewContext, raw: RawParams): Promise<LifecycleSpec> {
  const entity = await lifecycleEntity(context, raw);
  const interval = intervalParam(raw);
  const range = rangeParam(raw, context, interval);
  // One period before the range decides new/returning at its start; one after holds the last dormant.
  const window = {
    from: range.from ? addInterval(truncate(range.from, interval), interval, -1) : null,
    to: addInterval(truncate(new Date(range.to.getTime() - 1), interval), interval, 1),
  };
  const where = await entityEventsSql(context, raw, entity, window);
  const one = intervalSql(interval);
  const marked = (slice: RawBuilder<unknown>) => sql`
    select m.person_id, m.period, m.prev, m.next, ${bucketSql(localSql(sql.ref('p.created_at'), context.timezone), interval)} as created
    from (
      select person_id, period,
        lag(period) over (partition by person_id order by period) as prev,
        lead(period) over (partition by person_id order by period) as next
      from (
        select distinct e.person_id, ${bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), interval)} as period
        from events e
        where ${where} and ${slice}
      ) periods
    ) m
    left join persons p on p.team_id = ${context.teamId} and p.id = m.person_id`;
  const status = (type: LifecycleType, target: RawBuilder<unknown>): RawBuilder<unknown> => {
    if (type === 'new') return sql`m.period = ${target} and m.prev is null and m.period = m.created`;
    if (type === 'returning') return sql`m.period = ${target} and m.prev = m.period - ${one}`;
    if (type === 'resurrecting')
      return sql`m.period = ${target} and (m.prev is null and m.period is distinct from m.created or m.prev < m.period - ${one})`;
    return sql`m.period = ${target} - ${one} and (m.next is null or m.next > ${target})`;
  };
  return { entity, interval, range, window, where, marked, status };
}

export async function lifecycleActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const targetRaw = stringParam(raw, 'target_date');
  if (targetRaw === undefined) throw validationError('Must include specified date', 'target_date', 'required');
  const type = stringParam(raw, 'lifecycle_type');
  if (type === undefined) throw validationError('Must include lifecycle type', 'lifecycle_type', 'required');
  if (!(LIFECYCLE_TYPES as readonly string[]).includes(type))
    throw validationError(`"${type}" is not a valid choice.`, 'lifecycle_type', 'invalid_choice');
  const spec = await lifecycleSpec(context, raw);
  const target = formatLocal(
    truncate(parseDate(targetRaw, context.timezone, context.now, 'target_date').value, spec.interval),
  );
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<{ person_id: number }>`
    select m.person_id
    from (${spec.marked(slice)}) m
    where ${spec.status(type as LifecycleType, sql`${target}::timestamp`)}
    order by m.person_id
    limit ${page.offset + page.limit}`.execute(context.db)
      ).rows,
  );
  const ids = parts
    .flat()
    .map((row) => Number(row.person_id))
    .sort((a, b) => a - b);
  return renderActors(context, ids.slice(page.offset, page.offset + page.limit), 'store');
}
