-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","shown_as":"Lifecycle","interval":"week"}

-- query 1
select to_char("m"."period", 'YYYY-MM-DD HH24:MI:SS') as t,
count(*) filter (where m.period = m.period and m.prev is null and m.period = m.created) as new,
count(*) filter (where m.period = m.period and m.prev = m.period - ($1::int * $2::interval)) as returning,
count(*) filter (where m.period = m.period and (m.prev is null and m.period is distinct from m.created or m.prev < m.period - ($3::int * $4::interval))) as resurrecting,
count(*) filter (where m.period = m.period + ($5::int * $6::interval) - ($7::int * $8::interval) and (m.next is null or m.next > m.period + ($9::int * $10::interval))) as dormant_after
from (
select m.person_id, m.period, m.prev, m.next, (date_trunc('day', ("p"."created_at" at time zone $11)) - extract(dow from ("p"."created_at" at time zone $12))::int * interval '1 day') as created
from (
select person_id, period,
lag(period) over (partition by person_id order by period) as prev,
lead(period) over (partition by person_id order by period) as next
from (
select distinct e.person_key as person_id, (date_trunc('day', ("e"."timestamp" at time zone $13)) - extract(dow from ("e"."timestamp" at time zone $14))::int * interval '1 day') as period
from events e
where (e.team_id = $15 and e.person_key > 0 and ("e"."timestamp" >= ($16::timestamp at time zone $17) and "e"."timestamp" < ($18::timestamp at time zone $19)) and e.event = $20 and true and true) and true
) periods
) m
left join (with project_persons as materialized (
select p.id, created_at from persons p where p.team_id = $21 and true
) select * from project_persons) p on p.id = m.person_id) m
group by m.period
-- parameters: [1,"1 week",1,"1 week",1,"1 week",1,"1 week",1,"1 week","UTC","UTC","UTC","UTC",1,"2023-12-24 00:00:00.000","UTC","2024-01-21 00:00:00.000","UTC","$pageview",1]
