-- persons/funnel {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_step":-3,"funnel_order_type":"strict"}

-- query 1
-- A subquery: a selection's own distinct at the top of a statement was done again on the coordinator.
with selected as materialized (select s.person_id from (select f.person_id from (
select a.person_id, max(a.steps) as steps, array[min(a.times[1]), min(a.times[2]), min(a.times[3])] as reached, extract(epoch from min(a.times[2]) - min(a.times[1]))::float8 as "gap2", extract(epoch from min(a.times[3]) - min(a.times[2]))::float8 as "gap3"
from (
select person_id, ts as t0, 1 + case when coalesce("ok1", false) and "t1" <= ts + $1::interval then 1 else 0 end + case when coalesce("ok1", false) and "t1" <= ts + $2::interval and coalesce("ok2", false) and "t2" <= ts + $3::interval then 1 else 0 end as steps, case when coalesce("ok1", false) and "t1" <= ts + $4::interval and coalesce("ok2", false) and "t2" <= ts + $5::interval then "t2" end as final_ts,
array[ts, case when coalesce("ok1", false) and "t1" <= ts + $6::interval then "t1" end, case when coalesce("ok1", false) and "t1" <= ts + $7::interval and coalesce("ok2", false) and "t2" <= ts + $8::interval then "t2" end] as times
from (select fe.*, lead("s1", 1) over w as "ok1", lead(ts, 1) over w as "t1", lead("s2", 2) over w as "ok2", lead(ts, 2) over w as "t2" from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $9, false) as "s0", coalesce(e.event = $10, false) as "s1", coalesce(e.event = $11, false) as "s2" from events e where (e.team_id = $12 and e.person_key > 0 and ("e"."timestamp" >= ($13::timestamp at time zone $14) and "e"."timestamp" < ($15::timestamp at time zone $16)) and true and true and true and e.person_key in (
select e.person_key from events e
where e.team_id = $17 and e.event = $18 and ("e"."timestamp" >= ($19::timestamp at time zone $20) and "e"."timestamp" < ($21::timestamp at time zone $22))) and true)) fe window w as (partition by person_id order by ts, id)) l
where s0) a
group by a.person_id) f where f.steps = $23 and true) s)
select s.person_id, p.uuid
from selected s
left join (select p.id, p.uuid from persons p where p.team_id = $24 and true) p on p.id = s.person_id
order by p.uuid nulls last, s.person_id
limit $25
-- parameters: ["1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",1,"signup","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",2,1,100]
