-- insights/path {"date_from":"2024-01-01","date_to":"2024-01-19"}

-- query 1
select p.source, p.target, count(*) as value, sum(p.ms)::float8 as total_ms, sum(p.timed) as timed
from (
select k.prev_key as source, k.key as target, sum(extract(epoch from k.ts - k.prev_ts) * 1000) as ms, count(k.prev_ts) as timed
from (
select person_id, session, i, i || '_' || item as key, ts,
case when i > 1 then (i - 1) || '_' || prev_item end as prev_key,
case when i > 1 then prev_ts end as prev_ts,
i = $1 or session_ends as last
from (
select *, rn - start_rn + 1 as i from (
select *, max(case when new_session then rn end) over (partition by person_id order by ts, id) as start_rn, true as started
from (
select *, null::bigint as session,
row_number() over (partition by person_id order by ts, id) as rn,
lag(ts) over (partition by person_id order by ts, id) as prev_ts,
coalesce(lead(new_session) over (partition by person_id order by ts, id), true) as session_ends
from (
select person_id, ts, id, item, new_session, prev_item
from (select i.*, coalesce(lag(ts) over (partition by person_id order by ts, id) <= ts - interval '30 minutes', true) as new_session, lag(item) over (partition by person_id order by ts, id) as prev_item from (select i.* from (select e.person_key as person_id, e.timestamp as ts, e.id, (coalesce(
case when $2 and e.event = '$pageview' then case when e.page like '_%/' then left(e.page, -1) else e.page end end,
case when $3 and e.event = '$screen' then e.page end,
e.event)) as item from events e where (e.team_id = $4 and e.person_key > 0 and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)) and true and true and true and true and true)) i where true) i) gaps
where new_session or prev_item is distinct from item
) kept
) numbered
) started_rows
where started
) indexed
where i between 1 and $9) k
where k.prev_key is not null
group by k.person_id, 1, 2
) p
group by 1, 2
-- parameters: [5,true,true,1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",5]
