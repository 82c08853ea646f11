-- insights/funnel {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","exclusions":[{"id":"logout","type":"events","funnel_from_step":0,"funnel_to_step":1}]}

-- query 1
select '' as value, count(*) filter (where f.steps >= 1) as "reached1", count(*) filter (where f.steps >= 2) as "reached2", sum("f"."gap2"::numeric) filter (where f.steps >= 2) as "gap_sum2", count("f"."gap2") filter (where f.steps >= 2) as "timed2", string_agg("f"."gap2"::text, ',') filter (where f.steps >= 2 and "f"."gap2" is not null) as "gaps2", count(*) filter (where f.steps >= 3) as "reached3", sum("f"."gap3"::numeric) filter (where f.steps >= 3) as "gap_sum3", count("f"."gap3") filter (where f.steps >= 3) as "timed3", string_agg("f"."gap3"::text, ',') filter (where f.steps >= 3 and "f"."gap3" is not null) as "gaps3" from (
select a.person_id, max(a.steps) as steps, array[min(a.times[1]), min(a.times[2]), min(a.times[3])] as reached, extract(epoch from min(a.times[2]) - min(a.times[1]))::float8 as "gap2", extract(epoch from min(a.times[3]) - min(a.times[2]))::float8 as "gap3"
from (select a.* from (
select person_id, ts as t0, 1 + case when "r0_1" <= ts + $1::interval then 1 else 0 end + case when "r0_2" <= ts + $2::interval then 1 else 0 end as steps, case when "r0_2" <= ts + $3::interval then "r0_2" end as final_ts,
array[ts, case when "r0_1" <= ts + $4::interval then "r0_1" end, case when "r0_2" <= ts + $5::interval then "r0_2" end] as times
from (
select * from (
select person_id, ts, id, "s0", "s1", "s2", "r1_2", min(case when "s1" then ts end) over wc as "r0_1", min(case when "s1" then "r1_2" end) over wc as "r0_2"
from (
select * from (
select person_id, ts, id, "s0", "s1", "s2", min(case when "s2" then ts end) over wc as "r1_2"
from (select fe.* from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $6, false) as "s0", coalesce(e.event = $7, false) as "s1", coalesce(e.event = $8, false) as "s2" from events e where (e.team_id = $9 and e.person_key > 0 and ("e"."timestamp" >= ($10::timestamp at time zone $11) and "e"."timestamp" < ($12::timestamp at time zone $13)) and true and true and (e.event = $14 or e.event = $15 or e.event = $16) and true and true)) fe) l1
window wc as (partition by person_id order by ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by ts desc, id desc rows between unbounded preceding and 1 preceding)
) p1 where "s0" or "s1") l0
window wc as (partition by person_id order by ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by ts desc, id desc rows between unbounded preceding and 1 preceding)
) p0 where "s0") ordered_attempts) a left join (
select e.person_key as person_id, e.timestamp from events e
where e.team_id = $17 and e.event = $18
and ("e"."timestamp" >= ($19::timestamp at time zone $20) and "e"."timestamp" < ($21::timestamp at time zone $22))
) "x0" on a.times[1] is not null and "x0".person_id = a.person_id
and "x0".timestamp > a.times[1] and "x0".timestamp < coalesce(a.times[2], a.times[1] + $23::interval) where "x0".person_id is null) a
group by a.person_id) f group by 1
-- parameters: ["1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase",1,"logout","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","1209600 seconds"]
