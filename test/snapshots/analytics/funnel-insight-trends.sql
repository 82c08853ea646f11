-- insights/funnel {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_viz_type":"trends","funnel_from_step":0,"funnel_to_step":1}

-- query 1
select to_char("x"."period", 'YYYY-MM-DD HH24:MI:SS') as period,
count(*) filter (where x.steps >= $1) as reached_from,
count(*) filter (where x.steps >= $2) as reached_to
from (
select a.person_id, a.period, max(a.steps) as steps
from (
select person_id, ts as t0, 1 + case when "r0_1" <= ts + $3::interval then 1 else 0 end + case when "r0_2" <= ts + $4::interval then 1 else 0 end as steps, case when "r0_2" <= ts + $5::interval then "r0_2" end as final_ts,
array[ts, case when "r0_1" <= ts + $6::interval then "r0_1" end, case when "r0_2" <= ts + $7::interval then "r0_2" end] as times, period
from (
select * from (
select person_id, ts, id, period, "s0", "s1", "s2", "r1_2", min(case when "s1" then ts end) over wc as "r0_1", min(case when "s1" then "r1_2" end) over wc as "r0_2"
from (
select * from (
select person_id, ts, id, period, "s0", "s1", "s2", min(case when "s2" then ts end) over wc as "r1_2"
from (select fe.* from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $8, false) as "s0", coalesce(e.event = $9, false) as "s1", coalesce(e.event = $10, false) as "s2", date_trunc($11, ("e"."timestamp" at time zone $12)) as period from events e where (e.team_id = $13 and e.person_key > 0 and ("e"."timestamp" >= ($14::timestamp at time zone $15) and "e"."timestamp" < ($16::timestamp at time zone $17)) and true and true and (e.event = $18 or e.event = $19 or e.event = $20) and true and true)) fe) l1
window wc as (partition by person_id order by period desc, ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by period desc, ts desc, id desc rows between unbounded preceding and 1 preceding)
) p1 where "s0" or "s1") l0
window wc as (partition by person_id order by period desc, ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by period desc, ts desc, id desc rows between unbounded preceding and 1 preceding)
) p0 where "s0") ordered_attempts) a
group by a.person_id, a.period
order by a.person_id, a.period desc
) x group by x.period
-- parameters: [1,2,"1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase","day","UTC",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase"]
