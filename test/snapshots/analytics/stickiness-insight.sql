-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","shown_as":"Stickiness"}

-- query 1
select s.n, count(*) as persons from (
select e.person_key as person_id, count(distinct date_trunc($1, ("e"."timestamp" at time zone $2))) as n
from events e where (e.team_id = $3 and e.event = $4 and true and true and e.person_key > 0 and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)) and true)
group by e.person_key
) s group by s.n
-- parameters: ["day","UTC",1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
