// How far each person got in a funnel, and when they first reached each step: rows
// `(person_id, steps, reached, gap2 … gapN)`, `reached[k]` the first time the person reached step k
// (null if never), `gap{k}` the seconds from the first reach of step k-1 to that of step k.
// Two engines answer it (ReachEngine); reachEngineOf chooses.
import { sql, type RawBuilder } from 'kysely';
import type { FunnelSpec } from './funnel-request.ts';
import { attemptsWithExclusionsSql, flag, funnelEventsSql, needsLaterEvent, type FunnelScan } from './funnel-steps.ts';
import type { ViewContext } from './view-context.ts';

/**
 * `forward-pass`: one pass over each person's events in time order (the order of the
 * events_person_order index, so no sort): for every event of step k, the latest start of a chain of
 * steps 1 … k ending there. A chain reaches step k+1 at an event of that step when its start is
 * within the window; keeping the latest start is enough, since a later start leaves the most window.
 * It answers ordered funnels without exclusions (it keeps no attempt an exclusion could discard).
 * `attempts`: every attempt of every person (funnel-steps.ts), grouped by person; any funnel.
 */
export type ReachEngine = 'forward-pass' | 'attempts';

/** The forward pass where it can answer (the faster: no per-attempt rows), else the attempts. */
export function reachEngineOf(spec: FunnelSpec): ReachEngine {
  return spec.order === 'ordered' && spec.exclusions.length === 0 ? 'forward-pass' : 'attempts';
}

const latest = (k: number) => sql.ref(`m${k}`);
const starts = (k: number) => sql.ref(`c${k}`);

function forwardPassSql(context: ViewContext, spec: FunnelSpec, scan: FunnelScan): RawBuilder<unknown> {
  const { steps } = spec;
  const n = steps.length;
  const window = sql`${spec.window}::interval`;
  // The start of a valid chain ending at this event as step k, or null.
  const start = (k: number): RawBuilder<unknown> =>
    k === 0
      ? sql`case when ${flag(0)} then ts end`
      : sql`case when ${flag(k)} and ${latest(k - 1)} + ${window} >= ts then ${latest(k - 1)} end`;
  // Level k's frame holds this person's events before this one (and this one unless it must be a later event).
  const withCurrent = (k: number) => !needsLaterEvent(steps[k - 1], steps[k]);
  // The person's first event starting a chain at step j: the aggregate below needs only that one
  // of them (the first time j was reached), once no later pass reads the others.
  const firstStart = (j: number) =>
    sql`(${start(j)} is not null and ${starts(j)} = ${sql.lit(withCurrent(j + 1) ? 1 : 0)})`;
  let level = funnelEventsSql(context, spec, scan);
  for (let k = 1; k < n; k++) {
    // m{k-1}: the latest chain start over this person's step-(k-1) events up to this one; c{k-1}
    // how many such starts there were.
    const frame = withCurrent(k)
      ? sql`rows between unbounded preceding and current row`
      : sql`rows between unbounded preceding and 1 preceding`;
    const passed = sql`select l.*, max(${start(k - 1)}) over w as ${latest(k - 1)}, count(${start(k - 1)}) over w as ${starts(k - 1)}
      from (${level}) l window w as (partition by person_id order by ts, id ${frame})`;
    if (k === n - 1) {
      level = passed;
      break;
    }
    // The next passes read only events of the later steps; of the earlier ones each person keeps
    // the first start of each step (most events of a funnel are usually of its first step).
    const later = sql.join(
      Array.from({ length: n - k }, (_, i) => flag(k + i)),
      sql` or `,
    );
    const firsts = sql.join(
      Array.from({ length: k }, (_, j) => firstStart(j)),
      sql` or `,
    );
    level = sql`select * from (${passed}) l where ${later} or ${firsts}`;
  }
  const indexes = steps.map((_, k) => k);
  const reachedHere = sql`greatest(${sql.join(indexes.map((k) => sql`case when ${start(k)} is not null then ${sql.lit(k + 1)} end`))})`;
  const firsts = indexes.map((k) => sql`min(ts) filter (where ${start(k)} is not null)`);
  return sql`
    select person_id, max(${reachedHere}) as steps, array[${sql.join(firsts)}] as reached${gapsSql(firsts)}
    from (${level}) chains
    group by person_id
    having max(${reachedHere}) is not null`;
}

/** `, gap2 … gapN`: seconds between the first reaches (identical aggregates are computed once). */
function gapsSql(firsts: RawBuilder<unknown>[]): RawBuilder<unknown> {
  if (firsts.length < 2) return sql``;
  return sql`, ${sql.join(firsts.slice(1).map((first, i) => sql`extract(epoch from ${first} - ${firsts[i]})::float8 as ${sql.ref(`gap${i + 2}`)}`))}`;
}

export function funnelReachSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan = {},
  engine: ReachEngine = reachEngineOf(spec),
): RawBuilder<unknown> {
  if (engine === 'forward-pass') {
    if (reachEngineOf(spec) !== 'forward-pass')
      throw new Error('The forward pass answers ordered funnels without exclusions only.');
    return forwardPassSql(context, spec, scan);
  }
  // An attempt's times are when it reached each step; the first reach is the earliest of them.
  const firsts = spec.steps.map((_, k) => sql`min(a.times[${sql.lit(k + 1)}])`);
  return sql`
    select a.person_id, max(a.steps) as steps, array[${sql.join(firsts)}] as reached${gapsSql(firsts)}
    from (${attemptsWithExclusionsSql(context, spec, scan)}) a
    group by a.person_id`;
}
