-- persons/funnel {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_viz_type":"trends","entrance_period_start":"2024-01-02 00:00:00","drop_off":"true","funnel_from_step":0,"funnel_to_step":2}

-- query 1
-- A subquery: a selection's own distinct at the top of a statement was done again on the coordinator.
with selected as materialized (select s.person_id from (
select f.person_id from (
select a.person_id, max(a.steps) as steps
from (
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
) p0 where "s0") ordered_attempts) a
where date_trunc($17, ("a"."t0" at time zone $18)) = $19::timestamp
group by a.person_id
) f where f.steps >= $20 and f.steps < $21) s)
select s.person_id, p.uuid
from selected s
left join (select p.id, p.uuid from persons p where p.team_id = $22 and true) p on p.id = s.person_id
order by p.uuid nulls last, s.person_id
limit $23
-- parameters: ["1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase","day","UTC","2024-01-02 00:00:00.000",1,3,1,100]
