// How far each person got in a funnel, and when they first reached each step: rows
// `(person_id, steps, reached)`, `reached[k]` the first time the person reached step k (null if
// never). Ordered funnels without exclusions take one forward pass over each person's events in
// time order (the order of the events_person_order index, so no sort): for every event of step k,
// the latest start of a chain of steps 1 … k ending there. A chain reaches step k+1 at an event
// of that step when its start is within the window; keeping the latest start is enough, since a
// later start leaves the most window. The other funnels go through their attempts.
import { sql, type RawBuilder } from 'kysely';
import type { ViewContext } from './actors.ts';
import { attemptsWithExclusionsSql, flag, funnelEventsSql, needsLaterEvent, type FunnelSpec } from './funnel-steps.ts';

const latest = (k: number) => sql.ref(`m${k}`);

function orderedReachSql(context: ViewContext, spec: FunnelSpec): RawBuilder<unknown> {
  const { steps } = spec;
  const window = sql`${spec.window}::interval`;
  // The start of a valid chain ending at this event as step k, or null.
  const start = (k: number): RawBuilder<unknown> => (k === 0
    ? sql`case when ${flag(0)} then ts end`
    : sql`case when ${flag(k)} and ${latest(k - 1)} + ${window} >= ts then ${latest(k - 1)} end`);
  let level = funnelEventsSql(context, spec);
  for (let k = 1; k < steps.length; k++) {
    // m{k-1}: the latest chain start over this person's step-(k-1) events up to this one
    // (strictly before it when one event could be both steps).
    const frame = needsLaterEvent(steps[k - 1], steps[k]) ? sql`rows between unbounded preceding and 1 preceding` : sql`rows between unbounded preceding and current row`;
    level = sql`select l.*, max(${start(k - 1)}) over (partition by person_id order by ts, id ${frame}) as ${latest(k - 1)} from (${level}) l`;
  }
  const indexes = steps.map((_, k) => k);
  const reachedHere = sql`greatest(${sql.join(indexes.map((k) => sql`case when ${start(k)} is not null then ${sql.lit(k + 1)} end`))})`;
  return sql`
    select person_id, max(${reachedHere}) as steps,
      array[${sql.join(indexes.map((k) => sql`min(ts) filter (where ${start(k)} is not null)`))}] as reached
    from (${level}) chains
    group by person_id
    having max(${reachedHere}) is not null`;
}

export function funnelReachSql(context: ViewContext, spec: FunnelSpec): RawBuilder<unknown> {
  if (spec.order === 'ordered' && spec.exclusions.length === 0) return orderedReachSql(context, spec);
  // An attempt's times are when it reached each step; the first reach is the earliest of them.
  const firsts = spec.steps.map((_, k) => sql`min(a.times[${sql.lit(k + 1)}])`);
  return sql`
    select a.person_id, max(a.steps) as steps, array[${sql.join(firsts)}] as reached
    from (${attemptsWithExclusionsSql(context, spec)}) a
    group by a.person_id`;
}
