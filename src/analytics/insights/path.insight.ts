// The paths insight (`/insights/path/`): the edges between consecutive path nodes (`{i}_{item}`)
// of the persons' sessions, each with the persons who took it (the paths persons view of
// `path_start_key`/`path_end_key` lists them) and the mean milliseconds between the two nodes.
import { sql } from 'kysely';
import { validationError } from '../../errors.ts';
import { intParam, type RawParams } from '../params.ts';
import { pathNodesSql } from '../path-nodes.ts';
import { parsePathRequest, type PathRequest } from '../path-request.ts';
import type { ViewContext } from '../view-context.ts';
import { acrossSlices, sumRows } from '../person-slices.ts';
import { personsUrl, rangeParams } from './links.ts';

export interface PathEdge {
  source: string;
  target: string;
  value: number;
  average_conversion_time: number | null;
  people_url: string;
}

const DEFAULT_EDGE_LIMIT = 50;

interface EdgeRow extends Record<string, unknown> {
  source: string;
  target: string;
  value: number;
  total_ms: number;
  timed: number;
}

/** A paths insight request: the paths, and which of their edges to answer. */
interface PathInsightRequest {
  paths: PathRequest;
  edgeLimit: number;
  minWeight: number | undefined;
  maxWeight: number | undefined;
}

async function parsePathInsightRequest(context: ViewContext, raw: RawParams): Promise<PathInsightRequest> {
  const edgeLimit = intParam(raw, 'edge_limit', { min: 1, max: 10_000 }) ?? DEFAULT_EDGE_LIMIT;
  const minWeight = intParam(raw, 'min_edge_weight', { min: 0 });
  const maxWeight = intParam(raw, 'max_edge_weight', { min: 0 });
  if (minWeight !== undefined && maxWeight !== undefined && minWeight > maxWeight)
    throw validationError('min_edge_weight must not exceed max_edge_weight.', 'min_edge_weight');
  return { paths: await parsePathRequest(context, raw), edgeLimit, minWeight, maxWeight };
}

export async function pathInsight(context: ViewContext, raw: RawParams): Promise<PathEdge[]> {
  const { paths, edgeLimit, minWeight, maxWeight } = await parsePathInsightRequest(context, raw);
  // Persons do not cross slices: each edge's persons add up, and so do its times.
  // Each person's edges first (a hash aggregate): counting distinct persons per edge sorted them all.
  const parts = await acrossSlices(
    context,
    async (slice) =>
      (
        await sql<EdgeRow>`
    select p.source, p.target, count(*) as value, sum(p.ms)::float8 as total_ms, sum(p.timed) as timed
    from (
      select k.prev_key as source, k.key as target, sum(extract(epoch from k.ts - k.prev_ts) * 1000) as ms, count(k.prev_ts) as timed
      from (${pathNodesSql(context, paths, slice)}) k
      where k.prev_key is not null
      group by k.person_id, 1, 2
    ) p
    group by 1, 2`.execute(context.db)
      ).rows,
  );
  const rows = sumRows(parts, ['source', 'target'], ['value', 'total_ms', 'timed'])
    .filter((row) => row.value >= (minWeight ?? 0) && row.value <= (maxWeight ?? Infinity))
    .sort(
      (a, b) =>
        b.value - a.value ||
        (a.source < b.source ? -1 : a.source > b.source ? 1 : a.target < b.target ? -1 : a.target > b.target ? 1 : 0),
    )
    .slice(0, edgeLimit);
  const range = rangeParams(paths.range);
  return rows.map((row) => ({
    source: row.source,
    target: row.target,
    value: Number(row.value),
    average_conversion_time: row.timed > 0 ? row.total_ms / row.timed : null,
    people_url: personsUrl(context.teamId, 'path', raw, {
      ...range,
      path_start_key: row.source,
      path_end_key: row.target,
      path_dropoff_key: undefined,
    }),
  }));
}
