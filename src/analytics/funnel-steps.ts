// The funnel engine shared by the funnel, correlation and paths views: every candidate attempt of
// every person as SQL over `events`, for ordered, strict and unordered funnels; each person's best
// attempt; a funnel entrant's first-touch breakdown value.
import { sql, type RawBuilder } from 'kysely';
import { bucketSql, localSql, rangeSql } from './date-range.ts';
import { entitySql, type Entity } from './entities.ts';
import { breakdownValueConditionSql, breakdownValueReads, type BreakdownValue } from './breakdowns.ts';
import { andSql, filterSql, searchTextSql } from './filters.ts';
import type { FunnelSpec } from './funnel-request.ts';
import type { ViewContext } from './view-context.ts';

/** How one statement reads a funnel: options of the engine, not part of the request. */
export interface FunnelScan {
  /**
   * A step (0-based) every selected person must have performed in the range. Persons without
   * such an event cannot reach it, so their events are skipped before the per-person passes.
   */
  requiredStep?: number;
  /** The person slice (person-slices.ts) the funnel's events are read for. */
  slice?: RawBuilder<unknown>;
  /**
   * Attempts carry `period`, the interval bucket of their start in the project's time, and ordered
   * funnels come out sorted by person, then period (latest first), so they group by both unsorted.
   */
  byPeriod?: boolean;
}

export const flag = (k: number) => sql.ref(`s${k}`);

function requiredSql(context: ViewContext, spec: FunnelSpec, scan: FunnelScan): RawBuilder<unknown> {
  const step = scan.requiredStep;
  // Unordered funnels count any N of the steps, so no single step is required.
  if (step === undefined || step < 1 || step >= spec.steps.length || spec.order === 'unordered') return sql`true`;
  return sql`e.person_key in (
    select e.person_key from events e
    where e.team_id = ${context.teamId} and ${entitySql(spec.steps[step], context.teamId)} and ${rangeSql(sql.ref('e.timestamp'), spec.range, context.timezone)})`;
}

/** Two steps that one event can satisfy must be reached by distinct, later events. */
export function needsLaterEvent(previous: Entity, next: Entity): boolean {
  return previous.id === next.id || next.id === null || previous.id === null;
}

/**
 * Attempts `(person_id, t0, steps, final_ts, times)`: one row per step-1 event (each event of any
 * step when unordered), `steps` the number of steps reached from it within the window, `times`
 * the time each step was reached (null past the last one; unordered: the start only).
 */
function attemptsSql(context: ViewContext, spec: FunnelSpec, scan: FunnelScan): RawBuilder<unknown> {
  const { steps, order } = spec;
  const n = steps.length;
  const window = sql`${spec.window}::interval`;
  const events = funnelEventsSql(context, spec, scan, requiredSql(context, spec, scan));
  const period = scan.byPeriod ? sql`, period` : sql``;
  if (order === 'unordered') return unorderedSql(events, n, window, period);
  if (order === 'strict') return strictSql(events, n, window, period);
  return orderedSql(events, steps, window, scan.byPeriod ?? false);
}

/**
 * Rows `(person_id, ts, id, s0 … sN)`: the person's events a funnel reads (any event when strict),
 * each with a flag per step it matches.
 */
export function funnelEventsSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan,
  extra: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  const { steps, order } = spec;
  const matchAny =
    order === 'strict'
      ? sql`true`
      : sql`(${sql.join(
          steps.map((step) => entitySql(step, context.teamId)),
          sql` or `,
        )})`;
  const where = andSql([
    sql`e.team_id = ${context.teamId}`,
    sql`e.person_key > 0`,
    rangeSql(sql.ref('e.timestamp'), spec.range, context.timezone),
    filterSql(spec.properties, context.teamId),
    searchTextSql(spec.search),
    matchAny,
    extra,
    scan.slice ?? sql`true`,
  ]);
  const flags = sql.join(
    steps.map((step, k) => sql`coalesce(${entitySql(step, context.teamId)}, false) as ${flag(k)}`),
  );
  const period = scan.byPeriod
    ? sql`, ${bucketSql(localSql(sql.ref('e.timestamp'), context.timezone), spec.interval)} as period`
    : sql``;
  return sql`select e.person_key as person_id, e.timestamp as ts, e.id, ${flags}${period} from events e where ${where}`;
}

function orderedSql(
  events: RawBuilder<unknown>,
  steps: Entity[],
  window: RawBuilder<unknown>,
  byPeriod: boolean,
): RawBuilder<unknown> {
  const n = steps.length;
  const period = byPeriod ? sql`, period` : sql``;
  if (n === 1)
    return sql`select person_id, ts as t0, 1 as steps, ts as final_ts, array[ts] as times${period} from (${events}) fe where s0`;
  // r{k}_{m}: the time step m is reached when step k is reached at this row, following the
  // earliest-match path (the best one within a window). Among a person's step-k rows those times
  // never decrease, so "the nearest later step-k row's value" is a running min over the rows
  // after this one, which PostgreSQL computes incrementally in one reverse-ordered pass per step.
  // (With periods the rows go by period first: the same order, as periods follow time.)
  const col = (k: number, m: number) => sql.ref(`r${k}_${m}`);
  const order = byPeriod ? sql`period desc, ts desc, id desc` : sql`ts desc, id desc`;
  let level = sql`select fe.* from (${events}) fe`;
  let carried: RawBuilder<unknown>[] = [];
  for (let k = n - 2; k >= 0; k--) {
    const frame = needsLaterEvent(steps[k], steps[k + 1]) ? sql`wl` : sql`wc`;
    const columns: RawBuilder<unknown>[] = [
      sql`min(case when ${flag(k + 1)} then ts end) over ${frame} as ${col(k, k + 1)}`,
    ];
    for (let m = k + 2; m < n; m++)
      columns.push(sql`min(case when ${flag(k + 1)} then ${col(k + 1, m)} end) over ${frame} as ${col(k, m)}`);
    const keep = carried.length ? sql`, ${sql.join(carried)}` : sql``;
    // The next passes read only rows of steps up to k (the last one only step-1 rows).
    const earlier = sql.join(
      Array.from({ length: k + 1 }, (_, j) => flag(j)),
      sql` or `,
    );
    level = sql`
      select * from (
        select person_id, ts, id${period}, ${sql.join(steps.map((_, j) => flag(j)))}${keep}, ${sql.join(columns)}
        from (${level}) l${sql.lit(k)}
        window wc as (partition by person_id order by ${order} rows between unbounded preceding and current row),
               wl as (partition by person_id order by ${order} rows between unbounded preceding and 1 preceding)
      ) p${sql.lit(k)} where ${earlier}`;
    // Only the columns the next (earlier) step reads are carried up.
    carried = Array.from({ length: n - k - 1 }, (_, i) => col(k, k + 1 + i));
  }
  const times = Array.from({ length: n - 1 }, (_, i) => col(0, i + 1));
  const reached = sql.join(
    times.map((time) => sql`case when ${time} <= ts + ${window} then 1 else 0 end`),
    sql` + `,
  );
  return sql`
    select person_id, ts as t0, 1 + ${reached} as steps, case when ${times[n - 2]} <= ts + ${window} then ${times[n - 2]} end as final_ts,
      array[ts, ${sql.join(times.map((time) => sql`case when ${time} <= ts + ${window} then ${time} end`))}] as times${period}
    from (${level}) ordered_attempts`;
}

function strictSql(
  events: RawBuilder<unknown>,
  n: number,
  window: RawBuilder<unknown>,
  period: RawBuilder<unknown>,
): RawBuilder<unknown> {
  if (n === 1)
    return sql`select person_id, ts as t0, 1 as steps, ts as final_ts, array[ts] as times${period} from (${events}) fe where s0`;
  // Each later step must be the person's very next event of any kind.
  const leads = sql.join(
    Array.from({ length: n - 1 }, (_, i) => {
      const k = i + 1;
      return sql`lead(${flag(k)}, ${sql.lit(k)}) over w as ${sql.ref(`ok${k}`)}, lead(ts, ${sql.lit(k)}) over w as ${sql.ref(`t${k}`)}`;
    }),
  );
  const chain: RawBuilder<unknown>[] = [];
  for (let k = 1; k < n; k++)
    chain.push(
      sql`${k > 1 ? sql`${chain[k - 2]} and ` : sql``}coalesce(${sql.ref(`ok${k}`)}, false) and ${sql.ref(`t${k}`)} <= ts + ${window}`,
    );
  const reached = sql.join(
    chain.map((ok) => sql`case when ${ok} then 1 else 0 end`),
    sql` + `,
  );
  return sql`
    select person_id, ts as t0, 1 + ${reached} as steps, case when ${chain[n - 2]} then ${sql.ref(`t${n - 1}`)} end as final_ts,
      array[ts, ${sql.join(chain.map((ok, i) => sql`case when ${ok} then ${sql.ref(`t${i + 1}`)} end`))}] as times${period}
    from (select fe.*, ${leads} from (${events}) fe window w as (partition by person_id order by ts, id)) l
    where s0`;
}

function unorderedSql(
  events: RawBuilder<unknown>,
  n: number,
  window: RawBuilder<unknown>,
  period: RawBuilder<unknown>,
): RawBuilder<unknown> {
  // From an event of step j: 1 + the other steps with an event in (t, t + window].
  const has = sql.join(
    Array.from({ length: n }, (_, k) => sql`(count(*) filter (where ${flag(k)}) over w > 0) as ${sql.ref(`h${k}`)}`),
  );
  const fromStep = (j: number) => {
    const others = Array.from({ length: n }, (_, k) => k).filter((k) => k !== j);
    const sum = others.length
      ? sql.join(
          others.map((k) => sql`case when ${sql.ref(`h${k}`)} then 1 else 0 end`),
          sql` + `,
        )
      : sql`0`;
    return sql`case when ${flag(j)} then 1 + ${sum} end`;
  };
  const steps = sql`greatest(${sql.join(Array.from({ length: n }, (_, j) => fromStep(j)))})`;
  return sql`
    select person_id, ts as t0, ${steps} as steps, last_ts as final_ts, array[ts] as times${period}
    from (
      select fe.*, ${has}, max(ts) over w as last_ts
      from (${events}) fe
      window w as (partition by person_id order by ts range between current row and ${window} following exclude group)
    ) u`;
}

/**
 * Each person's best attempt of `attempts` (most steps, then the earliest start), with `columns`
 * of it (expressions on the attempt's row).
 */
export function bestAttemptsSql(attempts: RawBuilder<unknown>, columns: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`
    select distinct on (person_id) ${columns}
    from (${attempts}) attempts
    order by person_id, steps desc, t0`;
}

/**
 * Each person's best attempt with its start `first_ts`, its end `final_ts` when it converted, and
 * `times`, when it reached each step.
 */
export function funnelPersonsSql(context: ViewContext, spec: FunnelSpec, scan: FunnelScan = {}): RawBuilder<unknown> {
  return bestAttemptsSql(
    attemptsWithExclusionsSql(context, spec, scan),
    sql`person_id, steps, t0 as first_ts, case when steps = ${spec.steps.length} then final_ts end as final_ts, times`,
  );
}

/**
 * Rows `(person_id, …columns)`: each funnel entrant's first step-1 event in the range (first-touch
 * attribution, PostHog's default), with `columns` of it (each preceded by its comma).
 */
function firstTouchRowsSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan,
  columns: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`
    select distinct on (e.person_key) e.person_key as person_id${columns}
    from events e
    where e.team_id = ${context.teamId} and e.person_key > 0 and ${entitySql(spec.steps[0], context.teamId)}
      and ${rangeSql(sql.ref('e.timestamp'), spec.range, context.timezone)} and ${filterSql(spec.properties, context.teamId)} and ${scan.slice ?? sql`true`}
    order by e.person_key, e.timestamp, e.id`;
}

/** Rows `(person_id, value)`: each funnel entrant's breakdown value, taken on their first-touch event. */
export function firstTouchSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan,
  value: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return firstTouchRowsSql(context, spec, scan, sql`, ${value} as value`);
}

/** Rows `(person_id)`: the funnel entrants whose first-touch event (firstTouchSql) has the breakdown value. */
export function firstTouchMembersSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan,
  value: BreakdownValue,
): RawBuilder<unknown> {
  const condition = breakdownValueConditionSql(value, context.teamId);
  const reads = breakdownValueReads(value);
  if (!reads.staticCohort)
    return sql`select b.person_id from (${firstTouchSql(context, spec, scan, condition)}) b where b.value`;
  // A static cohort's members are a subquery over cohort_people, which a query over events may hold
  // in a where clause only (in the select list Citus could not plan it when the members lay apart
  // from the events); so the condition is tested on the first-touch rows, which carry only the
  // columns it reads (a plain static cohort: the person key, the index alone serves).
  const columns = [
    // The static cohort's test reads the event's person key (filters.ts).
    sql`, e.person_key`,
    ...(reads.properties ? [sql`, e.properties`] : []),
    ...(reads.personProperties ? [sql`, e.person_properties`] : []),
  ];
  return sql`select e.person_id from (${firstTouchRowsSql(context, spec, scan, sql.join(columns, sql``))}) e where ${condition}`;
}

/** The funnel entrant `f` is one whose first-touch event (firstTouchSql) has the breakdown value. */
export function firstTouchMatchSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan,
  value: BreakdownValue,
): RawBuilder<unknown> {
  return sql`f.person_id in (${firstTouchMembersSql(context, spec, scan, value)})`;
}

/**
 * An attempt is discarded when an exclusion event lies strictly between the times its from-step
 * and to-step were reached (from-step + window when the to-step was not). Unordered funnels have
 * no step times: their exclusions span the whole attempt.
 */
export function attemptsWithExclusionsSql(
  context: ViewContext,
  spec: FunnelSpec,
  scan: FunnelScan = {},
): RawBuilder<unknown> {
  const attempts = attemptsSql(context, spec, scan);
  if (spec.exclusions.length === 0) return attempts;
  const window = sql`${spec.window}::interval`;
  // One anti-join per exclusion, not a correlated `not exists`: on Citus the events are spread by
  // distinct id, and a subquery correlated with rows gathered from them cannot be planned.
  const joins = spec.exclusions.map((exclusion, index) => {
    const from = spec.order === 'unordered' ? sql`a.t0` : sql`a.times[${sql.lit((exclusion.fromStep ?? 0) + 1)}]`;
    const to =
      spec.order === 'unordered'
        ? sql`a.final_ts`
        : sql`a.times[${sql.lit((exclusion.toStep ?? spec.steps.length - 1) + 1)}]`;
    const x = sql.id(`x${index}`);
    return sql`left join (
        select e.person_key as person_id, e.timestamp from events e
        where e.team_id = ${context.teamId} and ${entitySql(exclusion, context.teamId)}
          and ${rangeSql(sql.ref('e.timestamp'), spec.range, context.timezone)}
      ) ${x} on ${from} is not null and ${x}.person_id = a.person_id
        and ${x}.timestamp > ${from} and ${x}.timestamp < coalesce(${to}, ${from} + ${window})`;
  });
  const none = sql.join(
    spec.exclusions.map((_, index) => sql`${sql.id(`x${index}`)}.person_id is null`),
    sql` and `,
  );
  return sql`select a.* from (${attempts}) a ${sql.join(joins, sql` `)} where ${none}`;
}
