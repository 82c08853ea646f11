// Persons behind a paths node or edge. Each person's events become path items
// (URL for pageviews, screen name for screens, else the event name), split into 30-minute
// sessions, deduplicated, cut at start/end points, limited to step_limit and keyed `{i}_{item}`.
import { sql, type RawBuilder } from 'kysely';
import { escapeLike } from '../db/like-pattern.ts';
import { AppError, validationError } from '../errors.ts';
import { renderActors, selectPersonsByUuid, type ActorsResult } from './actors.ts';
import type { ViewContext } from './view-context.ts';
import { rangeSql } from './date-range.ts';
import { andSql, filterSql, propertiesParam, searchSql } from './filters.ts';
import { stepSelection } from './funnel.query.ts';
import { pathSessionNodesSql } from './path-sessions.ts';
import { attemptsWithExclusionsSql, parseFunnel } from './funnel-steps.ts';
import { choiceParam, rangeParam, intParam, jsonParam, stringParam, type RawParams } from './params.ts';
import type { PageRequest } from '../wire/page.ts';

const EVENT_TYPES = ['$pageview', '$screen', 'custom_event', 'hogql'];
const FUNNEL_PATHS = ['funnel_path_after_step', 'funnel_path_before_step', 'funnel_path_between_steps'] as const;

function stringList(raw: RawParams, key: string): string[] {
  const value = jsonParam(raw, key) ?? [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string'))
    throw validationError('Expected a list of strings.', key);
  return value as string[];
}

function typeConditions(raw: RawParams): { condition: RawBuilder<unknown>; urls: boolean; screens: boolean } {
  const types = stringList(raw, 'include_event_types');
  const unknown = types.find((type) => !EVENT_TYPES.includes(type));
  if (unknown !== undefined)
    throw validationError(`"${unknown}" is not a valid choice.`, 'include_event_types', 'invalid_choice');
  if (types.includes('hogql')) throw validationError('HogQL path items are not supported.', 'include_event_types');
  const custom = stringList(raw, 'include_custom_events');
  const conditions: RawBuilder<unknown>[] = [];
  if (types.includes('$pageview')) conditions.push(sql`e.event = '$pageview'`);
  if (types.includes('$screen')) conditions.push(sql`e.event = '$screen'`);
  if (types.includes('custom_event')) conditions.push(sql`e.event not like '$%'`);
  if (custom.length) conditions.push(sql`e.event in (${sql.join(custom)})`);
  const all = types.length === 0 && custom.length === 0;
  return {
    condition: all ? sql`true` : sql`(${sql.join(conditions, sql` or `)})`,
    urls: all || types.includes('$pageview'),
    screens: all || types.includes('$screen'),
  };
}

/** An item matching a wildcard grouping (`/product/*`) becomes the pattern itself. */
function groupingSql(raw: RawParams, item: RawBuilder<unknown>): RawBuilder<unknown> {
  const groupings = stringList(raw, 'path_groupings');
  if (groupings.length === 0) return item;
  const cases = groupings.map((pattern) => {
    const like = escapeLike(pattern).replaceAll('*', '%');
    return sql`when ${item} like ${like} then ${pattern}`;
  });
  return sql`(case ${sql.join(cases, sql` `)} else ${item} end)`;
}

/**
 * `funnel_paths`: the persons of `funnel_filter`'s `funnel_step`, each with only the events at/after
 * or at/before the time their best attempt reached that step (a drop-off: its last completed step,
 * plus the window when before), or between it and the preceding step.
 */
async function funnelPathSql(
  context: ViewContext,
  raw: RawParams,
): Promise<(slice: RawBuilder<unknown>) => RawBuilder<unknown>> {
  if (stringParam(raw, 'funnel_paths') === undefined) return () => sql`true`;
  const kind = choiceParam(raw, 'funnel_paths', FUNNEL_PATHS, 'funnel_path_after_step');
  const filter = jsonParam(raw, 'funnel_filter');
  if (filter === undefined) throw validationError('This field is required.', 'funnel_filter', 'required');
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter))
    throw validationError('funnel_filter must be an object.', 'funnel_filter');
  const funnelRaw = filter as RawParams;
  try {
    const spec = await parseFunnel(funnelRaw, context);
    const step = intParam(funnelRaw, 'funnel_step');
    if (step === undefined) throw validationError('funnel_filter needs a funnel_step.', 'funnel_filter', 'required');
    const { condition, minSteps } = stepSelection(funnelRaw, spec.steps.length);
    // Unordered attempts carry no per-step times.
    if (spec.order === 'unordered')
      throw validationError('Funnel paths need an ordered or strict funnel.', 'funnel_filter');
    const at = step > 0 ? step : -step - 1;
    if (kind === 'funnel_path_between_steps' && at < 2)
      throw validationError('There is no step before the first one.', 'funnel_filter');
    spec.requiredStep = minSteps - 1;
    const time = sql`f.times[${sql.lit(at)}]`;
    const none = sql`null::timestamptz`;
    const [lower, upper] =
      kind === 'funnel_path_after_step'
        ? [time, none]
        : kind === 'funnel_path_before_step'
          ? [none, step < 0 ? sql`${time} + ${spec.window}::interval` : time]
          : [sql`f.times[${sql.lit(at - 1)}]`, time];
    return (slice) => sql`exists (
      select 1 from (
        select f.person_id, ${lower} as lower_ts, ${upper} as upper_ts
        from (
          select distinct on (person_id) person_id, steps, times
          from (${attemptsWithExclusionsSql(context, { ...spec, slice })}) attempts
          order by person_id, steps desc, t0
        ) f where ${condition}
      ) ft
      where ft.person_id = e.person_id and (ft.lower_ts is null or e.timestamp >= ft.lower_ts) and (ft.upper_ts is null or e.timestamp <= ft.upper_ts))`;
  } catch (error) {
    // The funnel's own keys live inside funnel_filter.
    if (error instanceof AppError && error.status === 400) throw validationError(error.detail, 'funnel_filter');
    throw error;
  }
}

/**
 * Rows `(person_id, session, i, key, prev_key, ts, prev_ts, last)`: every node of every person's
 * kept paths (`{i}_{item}`), with the node before it in the same session and when each was reached.
 */
export async function pathNodesSql(
  context: ViewContext,
  raw: RawParams,
): Promise<(slice: RawBuilder<unknown>) => RawBuilder<unknown>> {
  const stepLimit = intParam(raw, 'step_limit', { min: 1, max: 100 }) ?? 5;
  const startPoint = stringParam(raw, 'start_point');
  const endPoint = stringParam(raw, 'end_point');
  const excluded = stringList(raw, 'exclude_events');
  const range = rangeParam(raw, context, 'day');
  const types = typeConditions(raw);
  const page = sql`e.page`;
  // A URL loses one trailing slash unless it is "/" (like '_%/' is two characters or more ending
  // in "/"; a regexp_replace of '/$' cost ~0.6 µs an event).
  const item = sql`coalesce(
    case when ${types.urls} and e.event = '$pageview' then case when ${page} like '_%/' then left(${page}, -1) else ${page} end end,
    case when ${types.screens} and e.event = '$screen' then ${page} end,
    e.event)`;
  const common = [
    sql`e.team_id = ${context.teamId}`,
    sql`e.person_id is not null`,
    rangeSql(sql.ref('e.timestamp'), range, context.timezone),
    filterSql(await propertiesParam(context, raw), context.teamId),
    searchSql(raw),
    types.condition,
  ];
  const funnelPath = await funnelPathSql(context, raw);
  const notExcluded = excluded.length ? sql`i.item not in (${sql.join(excluded)})` : sql`true`;
  const grouped = groupingSql(raw, sql`(${item})`);
  return (slice) => {
    const where = andSql([...common, slice, funnelPath(slice)]);
    const items = sql`select i.* from (select e.person_id, e.timestamp as ts, e.id, ${grouped} as item from events e where ${where}) i where ${notExcluded}`;
    return pathSessionNodesSql(items, { stepLimit, startPoint, endPoint });
  };
}

export async function pathActors(context: ViewContext, raw: RawParams, page: PageRequest): Promise<ActorsResult> {
  const startKey = stringParam(raw, 'path_start_key');
  const endKey = stringParam(raw, 'path_end_key');
  const dropoffKey = stringParam(raw, 'path_dropoff_key');
  let selection: RawBuilder<unknown>;
  if (dropoffKey !== undefined) selection = sql`k.last and k.key = ${dropoffKey}`;
  else if (startKey !== undefined || endKey !== undefined) {
    selection = andSql([
      startKey === undefined ? sql`true` : sql`k.prev_key = ${startKey}`,
      endKey === undefined ? sql`true` : sql`k.key = ${endKey}`,
    ]);
  } else selection = sql`true`;
  const nodes = await pathNodesSql(context, raw);
  const paths = (slice: RawBuilder<unknown>) =>
    sql`select distinct k.person_id from (${nodes(slice)}) k where ${selection}`;
  return renderActors(context, await selectPersonsByUuid(context, paths, page), 'store');
}
