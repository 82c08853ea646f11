-- persons/trends {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"entity_id":"$pageview","entity_type":"events","date_from":"2024-01-02"}

-- query 1
select e.person_key as person_id, count(*) as value
from events e
where (e.team_id = $1 and e.person_key > 0 and ("e"."timestamp" >= ($2::timestamp at time zone $3) and "e"."timestamp" < ($4::timestamp at time zone $5)) and e.event = $6 and true and true and true)
group by e.person_key
order by value desc nulls last, e.person_key desc
limit $7 offset $8
-- parameters: [1,"2024-01-02 00:00:00.000","UTC","2024-01-03 00:00:00.000","UTC","$pageview",100,0]
