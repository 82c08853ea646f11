-- persons/stickiness {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"entity_order":0,"date_from":"2024-01-01","date_to":"2024-01-19","stickiness_days":2}

-- query 1
select e.person_key as person_id
from events e
where (e.team_id = $1 and e.person_key > 0 and ("e"."timestamp" >= ($2::timestamp at time zone $3) and "e"."timestamp" < ($4::timestamp at time zone $5)) and e.event = $6 and true and true) and true
group by e.person_key
having count(distinct date_trunc($7, ("e"."timestamp" at time zone $8))) = $9
order by e.person_key
limit $10
-- parameters: [1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview","day","UTC",2,100]
