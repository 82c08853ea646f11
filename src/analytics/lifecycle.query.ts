// Persons behind one lifecycle bar: each person's active periods in the range
// (plus one period either side) are labelled new/returning/resurrecting, and the period after a
// gap-starting one dormant; the persons with the requested label at target_date are returned.
import { sql } from 'kysely';
import { validationError } from '../errors.ts';
import type { PageRequest } from '../wire/page.ts';
import { renderActors, type ActorsResult } from './actors.ts';
import { formatLocal, parseDate, truncate } from './date-range.ts';
import {
  LIFECYCLE_TYPES,
  markedPeriodsSql,
  parseLifecycleRequest,
  statusReadsCreated,
  statusSql,
  type LifecycleRequest,
  type LifecycleType,
} from './lifecycle.ts';
import { stringParam, type RawParams } from './params.ts';
import { acrossSlices } from './person-slices.ts';
import type { ViewContext } from './view-context.ts';

/** A lifecycle persons request, as parsed from its parameters. */
interface LifecyclePersonsRequest {
  lifecycle: LifecycleRequest;
  type: LifecycleType;
  /** `target_date`'s period start, as local time text. */
  target: string;
}

async function parseLifecyclePersonsRequest(context: ViewContext, raw: RawParams): Promise<LifecyclePersonsRequest> {
  const targetRaw = stringParam(raw, 'target_date');
  if (targetRaw === undefined) throw validationError('Must include specified date', 'target_date', 'required');
  const type = stringParam(raw, 'lifecycle_type');
  if (type === undefined) throw validationError('Must include lifecycle type', 'lifecycle_type', 'required');
  if (!(LIFECYCLE_TYPES as readonly string[]).includes(type))
    throw validationError(`"${type}" is not a valid choice.`, 'lifecycle_type', 'invalid_choice');
  const lifecycle = await parseLifecycleRequest(context, raw);
  const target = formatLocal(
    truncate(parseDate(targetRaw, context.timezone, context.now, 'target_date').value, lifecycle.interval),
  );
  return { lifecycle, type: type as LifecycleType, target };
}

export async function lifecycleActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const { lifecycle, type, target } = await parseLifecyclePersonsRequest(context, raw);
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<{ person_id: number }>`
    select m.person_id
    from (${markedPeriodsSql(context, lifecycle, slice, statusReadsCreated(type))}) m
    where ${statusSql(lifecycle.interval, type, sql`${target}::timestamp`)}
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
