// Persons behind a paths node or edge. Each person's events become path items
// (URL for pageviews, screen name for screens, else the event name), split into 30-minute
// sessions, deduplicated, cut at start/end points, limited to step_limit and keyed `{i}_{item}`.
import { sql, type RawBuilder } from 'kysely';
import type { PageRequest } from '../wire/page.ts';
import { renderActors, selectPersonsByUuid, type ActorsResult } from './actors.ts';
import { andSql } from './filters.ts';
import { stringParam, type RawParams } from './params.ts';
import { pathNodesSql } from './path-nodes.ts';
import { parsePathRequest, type PathRequest } from './path-request.ts';
import type { ViewContext } from './view-context.ts';

/** A paths persons request: the paths, and the node (`path_dropoff_key`) or edge whose persons it lists. */
interface PathPersonsRequest {
  paths: PathRequest;
  startKey: string | undefined;
  endKey: string | undefined;
  dropoffKey: string | undefined;
}

async function parsePathPersonsRequest(context: ViewContext, raw: RawParams): Promise<PathPersonsRequest> {
  const startKey = stringParam(raw, 'path_start_key');
  const endKey = stringParam(raw, 'path_end_key');
  const dropoffKey = stringParam(raw, 'path_dropoff_key');
  return { paths: await parsePathRequest(context, raw), startKey, endKey, dropoffKey };
}

/** The condition on a node row `k` of the persons the request lists. */
function selectionSql({ startKey, endKey, dropoffKey }: PathPersonsRequest): RawBuilder<unknown> {
  if (dropoffKey !== undefined) return sql`k.last and k.key = ${dropoffKey}`;
  if (startKey === undefined && endKey === undefined) return sql`true`;
  return andSql([
    startKey === undefined ? sql`true` : sql`k.prev_key = ${startKey}`,
    endKey === undefined ? sql`true` : sql`k.key = ${endKey}`,
  ]);
}

export async function pathActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const request = await parsePathPersonsRequest(context, raw);
  const selection = selectionSql(request);
  const paths = (slice: RawBuilder<unknown>) =>
    sql`select distinct k.person_id from (${pathNodesSql(context, request.paths, slice)}) k where ${selection}`;
  return renderActors(context, await selectPersonsByUuid(context, paths, page), 'store');
}
