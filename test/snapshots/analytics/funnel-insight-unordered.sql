-- insights/funnel {"events":[{"id":"$pageview","type":"events","order":0},{"id":"signup","type":"events","order":1},{"id":"purchase","type":"events","order":2}],"date_from":"2024-01-01","date_to":"2024-01-19","funnel_order_type":"unordered"}

-- query 1
select '' as value, count(*) filter (where f.steps >= 1) as "reached1", count(*) filter (where f.steps >= 2) as "reached2", sum("f"."gap2"::numeric) filter (where f.steps >= 2) as "gap_sum2", count("f"."gap2") filter (where f.steps >= 2) as "timed2", string_agg("f"."gap2"::text, ',') filter (where f.steps >= 2 and "f"."gap2" is not null) as "gaps2", count(*) filter (where f.steps >= 3) as "reached3", sum("f"."gap3"::numeric) filter (where f.steps >= 3) as "gap_sum3", count("f"."gap3") filter (where f.steps >= 3) as "timed3", string_agg("f"."gap3"::text, ',') filter (where f.steps >= 3 and "f"."gap3" is not null) as "gaps3" from (
select a.person_id, max(a.steps) as steps, array[min(a.times[1]), min(a.times[2]), min(a.times[3])] as reached, extract(epoch from min(a.times[2]) - min(a.times[1]))::float8 as "gap2", extract(epoch from min(a.times[3]) - min(a.times[2]))::float8 as "gap3"
from (
select person_id, ts as t0, greatest(case when "s0" then 1 + case when "h1" then 1 else 0 end + case when "h2" then 1 else 0 end end, case when "s1" then 1 + case when "h0" then 1 else 0 end + case when "h2" then 1 else 0 end end, case when "s2" then 1 + case when "h0" then 1 else 0 end + case when "h1" then 1 else 0 end end) as steps, last_ts as final_ts, array[ts] as times
from (
select fe.*, (count(*) filter (where "s0") over w > 0) as "h0", (count(*) filter (where "s1") over w > 0) as "h1", (count(*) filter (where "s2") over w > 0) as "h2", max(ts) over w as last_ts
from (select e.person_key as person_id, e.timestamp as ts, e.id, coalesce(e.event = $1, false) as "s0", coalesce(e.event = $2, false) as "s1", coalesce(e.event = $3, false) as "s2" from events e where (e.team_id = $4 and e.person_key > 0 and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)) and true and true and (e.event = $9 or e.event = $10 or e.event = $11) and true and true)) fe
window w as (partition by person_id order by ts range between current row and $12::interval following exclude group)
) u) a
group by a.person_id) f group by 1
-- parameters: ["$pageview","signup","purchase",1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","signup","purchase","1209600 seconds"]
