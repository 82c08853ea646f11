-- persons/funnel/correlation {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_correlation_person_entity":{"id":"logout","type":"events"},"funnel_correlation_person_converted":"true"}

-- query 1
-- A subquery: a selection's own distinct at the top of a statement was done again on the coordinator.
with selected as materialized (select s.person_id from (select distinct f.person_id from (
select distinct on (person_id) person_id, steps, t0 as first_ts, case when steps = $1 then final_ts end as final_ts, times
from (
select person_id, ts as t0, 1 + case when "r0_1" <= ts + $2::interval then 1 else 0 end + case when "r0_2" <= ts + $3::interval then 1 else 0 end as steps, case when "r0_2" <= ts + $4::interval then "r0_2" end as final_ts,
array[ts, case when "r0_1" <= ts + $5::interval then "r0_1" end, case when "r0_2" <= ts + $6::interval then "r0_2" end] as times
from (
select * from (
select person_id, ts, id, "s0", "s1", "s2", "r1_2", min(case when "s1" then ts end) over wc as "r0_1", min(case when "s1" then "r1_2" end) over wc as "r0_2"
from (
select * from (
select person_id, ts, id, "s0", "s1", "s2", min(case when "s2" then ts end) over wc as "r1_2"
from (select fe.* from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $7, false) as "s0", coalesce(e.event = $8, false) as "s1", coalesce(e.event = $9, false) as "s2" from events e where (e.team_id = $10 and e.person_key > 0 and ("e"."timestamp" >= ($11::timestamp at time zone $12) and "e"."timestamp" < ($13::timestamp at time zone $14)) and true and true and (e.event = $15 or e.event = $16 or e.event = $17) and e.person_key in (
select e.person_key from events e
where e.team_id = $18 and e.event = $19 and ("e"."timestamp" >= ($20::timestamp at time zone $21) and "e"."timestamp" < ($22::timestamp at time zone $23))) and true)) fe) l1
window wc as (partition by person_id order by ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by ts desc, id desc rows between unbounded preceding and 1 preceding)
) p1 where "s0" or "s1") l0
window wc as (partition by person_id order by ts desc, id desc rows between unbounded preceding and current row),
wl as (partition by person_id order by ts desc, id desc rows between unbounded preceding and 1 preceding)
) p0 where "s0") ordered_attempts) attempts
order by person_id, steps desc, t0) f join (
select e.person_key as person_id, e.timestamp from events e
where e.team_id = $24 and e.event = $25 and e.event not in ($26, $27, $28)
and ("e"."timestamp" >= ($29::timestamp at time zone $30) and "e"."timestamp" < ($31::timestamp at time zone $32))
) c on c.person_id = f.person_id and c.timestamp > f.first_ts
and c.timestamp < coalesce(f.final_ts, f.first_ts + $33::interval) where f.steps >= 1 and f.steps = $34) s)
select s.person_id, p.uuid
from selected s
left join (select p.id, p.uuid from persons p where p.team_id = $35 and true) p on p.id = s.person_id
order by p.uuid nulls last, s.person_id
limit $36
-- parameters: [3,"1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase",1,"purchase","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",1,"logout","$pageview","signup","purchase","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","1209600 seconds",3,1,100]
