-- persons/trends {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"entity_order":0,"date_from":"2024-01-01","date_to":"2024-01-19","breakdown_type":"cohort","breakdown_value":"1"}

-- query 1
select e.person_key as person_id, count(*) as value
from events e
where (e.team_id = $1 and e.person_key > 0 and ("e"."timestamp" >= ($2::timestamp at time zone $3) and "e"."timestamp" < ($4::timestamp at time zone $5)) and e.event = $6 and true and true and ("e"."person_key" in (select cp.person_id from cohort_people cp where cp.team_id = $7::integer and cp.cohort_id = $8::integer)))
group by e.person_key
order by value desc nulls last, e.person_key desc
limit $9 offset $10
-- parameters: [1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","$pageview",1,1,100,0]
