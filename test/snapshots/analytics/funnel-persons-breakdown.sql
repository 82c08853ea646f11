-- persons/funnel {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_step":1,"breakdown":"browser","funnel_step_breakdown":"Chrome"}

-- query 1
-- A subquery: a selection's own distinct at the top of a statement was done again on the coordinator.
with selected as materialized (select s.person_id from (select f.person_id from (
select person_id, max(greatest(case when case when "s0" then ts end is not null then 1 end, case when case when "s1" and "m0" + $1::interval >= ts then "m0" end is not null then 2 end, case when case when "s2" and "m1" + $2::interval >= ts then "m1" end is not null then 3 end)) as steps, array[min(ts) filter (where case when "s0" then ts end is not null), min(ts) filter (where case when "s1" and "m0" + $3::interval >= ts then "m0" end is not null), min(ts) filter (where case when "s2" and "m1" + $4::interval >= ts then "m1" end is not null)] as reached, extract(epoch from min(ts) filter (where case when "s1" and "m0" + $5::interval >= ts then "m0" end is not null) - min(ts) filter (where case when "s0" then ts end is not null))::float8 as "gap2", extract(epoch from min(ts) filter (where case when "s2" and "m1" + $6::interval >= ts then "m1" end is not null) - min(ts) filter (where case when "s1" and "m0" + $7::interval >= ts then "m0" end is not null))::float8 as "gap3"
from (select l.*, max(case when "s1" and "m0" + $8::interval >= ts then "m0" end) over w as "m1", count(case when "s1" and "m0" + $9::interval >= ts then "m0" end) over w as "c1"
from (select * from (select l.*, max(case when "s0" then ts end) over w as "m0", count(case when "s0" then ts end) over w as "c0"
from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $10, false) as "s0", coalesce(e.event = $11, false) as "s1", coalesce(e.event = $12, false) as "s2" from events e where (e.team_id = $13 and e.person_key > 0 and ("e"."timestamp" >= ($14::timestamp at time zone $15) and "e"."timestamp" < ($16::timestamp at time zone $17)) and true and true and (e.event = $18 or e.event = $19 or e.event = $20) and true and true)) l window w as (partition by person_id order by ts, id rows between unbounded preceding and current row)) l where "s1" or "s2" or (case when "s0" then ts end is not null and "c0" = 1)) l window w as (partition by person_id order by ts, id rows between unbounded preceding and current row)) chains
group by person_id
having max(greatest(case when case when "s0" then ts end is not null then 1 end, case when case when "s1" and "m0" + $21::interval >= ts then "m0" end is not null then 2 end, case when case when "s2" and "m1" + $22::interval >= ts then "m1" end is not null then 3 end)) is not null) f where f.steps >= $23 and f.person_id in (select b.person_id from (
select distinct on (e.person_key) e.person_key as person_id, coalesce("e"."properties"->>$24, '') = $25 as value
from events e
where e.team_id = $26 and e.person_key > 0 and e.event = $27
and ("e"."timestamp" >= ($28::timestamp at time zone $29) and "e"."timestamp" < ($30::timestamp at time zone $31)) and true and true
order by e.person_key, e.timestamp, e.id) b where b.value)) s)
select s.person_id, p.uuid
from selected s
left join (select p.id, p.uuid from persons p where p.team_id = $32 and true) p on p.id = s.person_id
order by p.uuid nulls last, s.person_id
limit $33
-- parameters: ["1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","1209600 seconds","$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase","1209600 seconds","1209600 seconds",1,"browser","Chrome",1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",1,100]
