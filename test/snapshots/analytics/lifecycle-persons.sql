-- persons/lifecycle {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","target_date":"2024-01-03","lifecycle_type":"returning"}

-- query 1
select m.person_id
from (
select m.person_id, m.period, m.prev, m.next, null::timestamp as created
from (
select person_id, period,
lag(period) over (partition by person_id order by period) as prev,
lead(period) over (partition by person_id order by period) as next
from (
select distinct e.person_key as person_id, date_trunc($1, ("e"."timestamp" at time zone $2)) as period
from events e
where (e.team_id = $3 and e.person_key > 0 and ("e"."timestamp" >= ($4::timestamp at time zone $5) and "e"."timestamp" < ($6::timestamp at time zone $7)) and e.event = $8 and true and true) and true
) periods
) m
) m
where m.period = $9::timestamp and m.prev = m.period - ($10::int * $11::interval)
order by m.person_id
limit $12
-- parameters: ["day","UTC",1,"2023-12-31 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","2024-01-03 00:00:00.000",1,"1 day",100]
