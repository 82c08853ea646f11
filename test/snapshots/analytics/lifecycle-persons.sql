-- persons/lifecycle {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","target_date":"2024-01-03","lifecycle_type":"returning"}

-- query 1
select m.person_id
from (
select m.person_id, m.period, m.prev, m.next, date_trunc($1, ("p"."created_at" at time zone $2)) as created
from (
select person_id, period,
lag(period) over (partition by person_id order by period) as prev,
lead(period) over (partition by person_id order by period) as next
from (
select distinct e.person_id, date_trunc($3, ("e"."timestamp" at time zone $4)) as period
from events e
where (e.team_id = $5 and e.person_id is not null and ("e"."timestamp" >= ($6::timestamp at time zone $7) and "e"."timestamp" < ($8::timestamp at time zone $9)) and e.event = $10 and true and true) and true
) periods
) m
left join persons p on p.team_id = $11 and p.id = m.person_id) m
where m.period = $12::timestamp and m.prev = m.period - ($13::int * $14::interval)
order by m.person_id
limit $15
-- parameters: ["day","UTC","day","UTC",1,"2023-12-31 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview",1,"2024-01-03 00:00:00.000",1,"1 day",100]
