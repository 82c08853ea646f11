// From path items `(person_id, ts, id, item)` to path nodes: sessions split at 30 minutes of
// inactivity, consecutive duplicates collapsed, cut at the start/end points, the first (or with
// only an end point, last) step_limit items kept, each keyed `{i}_{item}`. The answer has rows
// `(person_id, session, i, key, prev_key, ts, prev_ts, last)`: `last` marks a session's last kept node
// (`session` numbers the person's sessions when there is a start or end point, else is null).
import { sql, type RawBuilder } from 'kysely';

export interface PathCut {
  stepLimit: number;
  startPoint?: string;
  endPoint?: string;
}

// A session ends at 30 minutes of inactivity; a previous time <= ts - GAP compares timestamps, cheaper
// than the interval ts - previous.
const GAP = sql`interval '30 minutes'`;
// Session numbers and row numbers packed in one bigint, so one running max finds, per session,
// its first row holding the start point.
const SHIFT = sql`4294967296::bigint`;

/**
 * Without an end point every cut is known by the time a row is read: one ordering (person, time)
 * throughout, which the person index gives without a sort. Row numbers count the kept rows of the
 * person; a session's first row number turns them into positions.
 */
function forwardNodesSql(items: RawBuilder<unknown>, cut: PathCut): RawBuilder<unknown> {
  const w = sql`(partition by person_id order by ts, id)`;
  const startRn =
    cut.startPoint === undefined
      ? sql`max(case when new_session then rn end) over ${w}`
      : sql`(session * ${SHIFT} - max(case when item = ${cut.startPoint} then session * ${SHIFT} - rn end) over ${w})`;
  // Rows before the session's start point (or in a session without one) have no start yet.
  const startedHere =
    cut.startPoint === undefined
      ? sql`true`
      : sql`max(case when item = ${cut.startPoint} then session * ${SHIFT} - rn end) over ${w} >= session * ${SHIFT} - ${SHIFT} + 1`;
  // Sessions are numbered only for a start point; positions alone need the session's first row.
  const session =
    cut.startPoint === undefined ? sql`null::bigint` : sql`sum(case when new_session then 1 else 0 end) over ${w}`;
  // The kept row before this one holds the item of the event before this one (a dropped event
  // repeats the item before it), so the previous item is read once, before the dropping.
  return sql`
    select person_id, session, i, i || '_' || item as key, ts,
      case when i > 1 then (i - 1) || '_' || prev_item end as prev_key,
      case when i > 1 then prev_ts end as prev_ts,
      i = ${cut.stepLimit} or session_ends as last
    from (
      select *, rn - start_rn + 1 as i from (
        select *, ${startRn} as start_rn, ${startedHere} as started
        from (
          select *, ${session} as session,
            row_number() over ${w} as rn,
            lag(ts) over ${w} as prev_ts,
            coalesce(lead(new_session) over ${w}, true) as session_ends
          from (
            select person_id, ts, id, item, new_session, prev_item
            from (select i.*, coalesce(lag(ts) over ${w} <= ts - ${GAP}, true) as new_session, lag(item) over ${w} as prev_item from (${items}) i) gaps
            where new_session or prev_item is distinct from item
          ) kept
        ) numbered
      ) started_rows
      where started
    ) indexed
    where i between 1 and ${cut.stepLimit}`;
}

/** With an end point a session's cut depends on what comes later in it: session partitions. */
function sessionNodesSql(items: RawBuilder<unknown>, cut: PathCut): RawBuilder<unknown> {
  const session = sql`partition by person_id, session order by ts, id`;
  const startCut = cut.startPoint === undefined ? sql`true` : sql`start_pos is not null and pos >= start_pos`;
  // Only an end point keeps the last steps before it; otherwise the first ones.
  const keepLast = cut.startPoint === undefined;
  const index = keepLast ? sql`(i - greatest(cut_len - ${cut.stepLimit}, 0))` : sql`i`;
  return sql`
    with sessions as (
      select *, sum(case when prev_ts is null or prev_ts <= ts - ${GAP} then 1 else 0 end) over (partition by person_id order by ts, id) as session
      from (select *, lag(ts) over (partition by person_id order by ts, id) as prev_ts from (${items}) i) gaps
    ), positioned as (
      select *, row_number() over (${session}) as pos
      from (select *, lag(item) over (${session}) as prev_item from sessions) d
      where prev_item is distinct from item
    ), started as (
      select *, min(pos) filter (where item = ${cut.startPoint ?? null}) over (partition by person_id, session) as start_pos from positioned
    ), bounded as (
      select *, min(pos) filter (where item = ${cut.endPoint ?? null} and pos >= coalesce(start_pos, 1)) over (partition by person_id, session) as end_pos from started
    ), cutted as (
      select person_id, session, item, ts, pos - coalesce(start_pos, 1) + 1 as i, count(*) over (partition by person_id, session) as cut_len
      from bounded where ${startCut} and end_pos is not null and pos <= end_pos
    ), limited as (
      select person_id, session, item, ts, ${index} as i from cutted where ${index} between 1 and ${cut.stepLimit}
    )
    select person_id, session, i, key, ts, prev_key, prev_ts, i = max(i) over (partition by person_id, session) as last
    from (
      select person_id, session, i, i || '_' || item as key, ts,
        lag(i || '_' || item) over (partition by person_id, session order by i) as prev_key,
        lag(ts) over (partition by person_id, session order by i) as prev_ts
      from limited
    ) keyed`;
}

/**
 * The two engines of the path nodes: `forward` (forwardNodesSql) when every cut is known as a row
 * is read (no end point), one ordering per person that the person index gives; `sessions`
 * (sessionNodesSql) when a session's cut depends on what comes later in it (an end point).
 */
export type PathEngine = 'forward' | 'sessions';

export function pathEngineOf(cut: PathCut): PathEngine {
  return cut.endPoint === undefined ? 'forward' : 'sessions';
}

export function pathSessionNodesSql(items: RawBuilder<unknown>, cut: PathCut): RawBuilder<unknown> {
  return pathEngineOf(cut) === 'forward' ? forwardNodesSql(items, cut) : sessionNodesSql(items, cut);
}
