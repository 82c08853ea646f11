-- insights/path {"date_from":"2024-01-01","date_to":"2024-01-19","funnel_paths":"funnel_path_between_steps","funnel_filter":{"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_step":3}}

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
e.event)) as item from events e where (e.team_id = $4 and e.person_key > 0 and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)) and true and true and true and true and exists (
select 1 from (
select f.person_id, f.times[2] as lower_ts, f.times[3] as upper_ts
from (
select distinct on (person_id) person_id, steps, times
from (
select person_id, ts as t0, 1 + case when "r0_1" <= ts + $9::interval then 1 else 0 end + case when "r0_2" <= ts + $10::interval then 1 else 0 end as steps, case when "r0_2" <= ts + $11::interval then "r0_2" end as final_ts,
array[ts, case when "r0_1" <= ts + $12::interval then "r0_1" end, case when "r0_2" <= ts + $13::interval then "r0_2" end] as times
from (
select * from (
select person_id, ts, id, "s0", "s1", "s2", "r1_2", min(case when "s1" then ts end) over wc as "r0_1", min(case when "s1" then "r1_2" end) over wc as "r0_2"
from (
select * from (
select person_id, ts, id, "s0", "s1", "s2", min(case when "s2" then ts end) over wc as "r1_2"
from (select fe.* from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $14, false) as "s0", coalesce(e.event = $15, false) as "s1", coalesce(e.event = $16, false) as "s2" from events e where (e.team_id = $17 and e.person_key > 0 and ("e"."timestamp" >= ($18::timestamp at time zone $19) and "e"."timestamp" < ($20::timestamp at time zone $21)) and true and true and (e.event = $22 or e.event = $23 or e.event = $24) and e.person_key in (
select e.person_key from events e
where e.team_id = $25 and e.event = $26 and ("e"."timestamp" >= ($27::timestamp at time zone $28) and "e"."timestamp" < ($29::timestamp at time zone $30))) and true)) fe) l1
window wc as (partition by person_id order by ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by ts desc, id desc rows between unbounded preceding and 1 preceding)
) p1 where "s0" or "s1") l0
window wc as (partition by person_id order by ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by ts desc, id desc rows between unbounded preceding and 1 preceding)
) p0 where "s0") ordered_attempts) attempts
order by person_id, steps desc, t0
) f where f.steps >= $31
) ft
where ft.person_id = e.person_key and (ft.lower_ts is null or e.timestamp >= ft.lower_ts) and (ft.upper_ts is null or e.timestamp <= ft.upper_ts)))) i where true) i) gaps
where new_session or prev_item is distinct from item
) kept
) numbered
) started_rows
where started
) indexed
where i between 1 and $32) k
where k.prev_key is not null
group by k.person_id, 1, 2
) p
group by 1, 2
-- parameters: [5,true,true,1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase",1,"purchase","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",3,5]
