// The nodes of a paths request: each person's events as path items (URL for pageviews, screen name
// for screens, else the event name, grouped by wildcard), of a funnel path's persons and times
// only, then split into sessions, cut and keyed by path-sessions.ts.
import { sql, type RawBuilder } from 'kysely';
import { escapeLike } from '../db/like-pattern.ts';
import { rangeSql } from './date-range.ts';
import { andSql, eventFiltersSql } from './filters.ts';
import { minStepsOf, stepSelectionSql } from './funnel-request.ts';
import { attemptsWithExclusionsSql, bestAttemptsSql } from './funnel-steps.ts';
import { reachedStepOf, type FunnelPath, type PathItemTypes, type PathRequest } from './path-request.ts';
import { pathSessionNodesSql } from './path-sessions.ts';
import type { ViewContext } from './view-context.ts';

function typesSql(types: PathItemTypes): RawBuilder<unknown> {
  if (types.all) return sql`true`;
  const conditions: RawBuilder<unknown>[] = [];
  if (types.pageviews) conditions.push(sql`e.event = '$pageview'`);
  if (types.screens) conditions.push(sql`e.event = '$screen'`);
  if (types.customEvents) conditions.push(sql`e.event not like '$%'`);
  if (types.custom.length) conditions.push(sql`e.event in (${sql.join(types.custom)})`);
  return sql`(${sql.join(conditions, sql` or `)})`;
}

/** An item matching a wildcard grouping (`/product/*`) becomes the pattern itself. */
function groupingSql(groupings: string[], item: RawBuilder<unknown>): RawBuilder<unknown> {
  if (groupings.length === 0) return item;
  const cases = groupings.map((pattern) => {
    const like = escapeLike(pattern).replaceAll('*', '%');
    return sql`when ${item} like ${like} then ${pattern}`;
  });
  return sql`(case ${sql.join(cases, sql` `)} else ${item} end)`;
}

/**
 * The funnel path's persons (those of its step), each with only the events at/after or at/before
 * the time their best attempt reached that step (a drop-off: its last completed step, plus the
 * window when before), or between it and the preceding step.
 */
function funnelPathSql(context: ViewContext, path: FunnelPath, slice: RawBuilder<unknown>): RawBuilder<unknown> {
  const { kind, funnel, step, selection } = path;
  const at = reachedStepOf(step);
  const time = sql`f.times[${sql.lit(at)}]`;
  const none = sql`null::timestamptz`;
  const [lower, upper] =
    kind === 'funnel_path_after_step'
      ? [time, none]
      : kind === 'funnel_path_before_step'
        ? [none, step < 0 ? sql`${time} + ${funnel.window}::interval` : time]
        : [sql`f.times[${sql.lit(at - 1)}]`, time];
  const attempts = attemptsWithExclusionsSql(context, funnel, { slice, requiredStep: minStepsOf(selection) - 1 });
  return sql`exists (
      select 1 from (
        select f.person_id, ${lower} as lower_ts, ${upper} as upper_ts
        from (
          ${bestAttemptsSql(attempts, sql`person_id, steps, times`)}
        ) f where ${stepSelectionSql(selection)}
      ) ft
      where ft.person_id = e.person_key and (ft.lower_ts is null or e.timestamp >= ft.lower_ts) and (ft.upper_ts is null or e.timestamp <= ft.upper_ts))`;
}

/**
 * Rows `(person_id, session, i, key, prev_key, ts, prev_ts, last)` of a person slice: every node of
 * every person's kept paths (`{i}_{item}`), with the node before it in the same session and when
 * each was reached.
 */
export function pathNodesSql(
  context: ViewContext,
  request: PathRequest,
  slice: RawBuilder<unknown>,
): RawBuilder<unknown> {
  const { types } = request;
  const page = sql`e.page`;
  const urls = types.all || types.pageviews;
  const screens = types.all || types.screens;
  // A URL loses one trailing slash unless it is "/" (like '_%/' is two characters or more ending
  // in "/"; a regexp_replace of '/$' cost ~0.6 µs an event).
  const item = sql`coalesce(
    case when ${urls} and e.event = '$pageview' then case when ${page} like '_%/' then left(${page}, -1) else ${page} end end,
    case when ${screens} and e.event = '$screen' then ${page} end,
    e.event)`;
  const where = andSql([
    sql`e.team_id = ${context.teamId}`,
    sql`e.person_key > 0`,
    rangeSql(sql.ref('e.timestamp'), request.range, context.timezone),
    ...eventFiltersSql(request.filters, context.teamId),
    typesSql(types),
    slice,
    request.funnelPath ? funnelPathSql(context, request.funnelPath, slice) : sql`true`,
  ]);
  const notExcluded = request.excluded.length ? sql`i.item not in (${sql.join(request.excluded)})` : sql`true`;
  const grouped = groupingSql(request.groupings, sql`(${item})`);
  const items = sql`select i.* from (select e.person_key as person_id, e.timestamp as ts, e.id, ${grouped} as item from events e where ${where}) i where ${notExcluded}`;
  return pathSessionNodesSql(items, request.cut);
}
