-- persons/retention {"target_entity":{"id":"signup","type":"events"},"date_to":"2024-01-19","selected_interval":2}

-- query 1
with cohort as (select c.person_id from (select distinct e.person_id, (("e"."timestamp" at time zone $1)::date - $2::timestamp::date) as cohort from events e where (e.team_id = $3 and e.person_id is not null and true and true and true and e.event = $4 and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)))) c where c.cohort = $9),
returned as (select r.person_id, r.period from (select distinct e.person_id, (("e"."timestamp" at time zone $10)::date - $11::timestamp::date) as period from events e where (e.team_id = $12 and e.person_id is not null and true and true and true and e.event = $13 and ("e"."timestamp" >= ($14::timestamp at time zone $15) and "e"."timestamp" < ($16::timestamp at time zone $17)))) r where r.person_id in (select person_id from cohort))
select c.person_id, array_agg(r.period) filter (where r.period > $18) as periods, count(r.period) filter (where r.period > $19) as returns
from cohort c
left join returned r on r.person_id = c.person_id
group by c.person_id
order by 3 desc, c.person_id
limit $20
-- parameters: ["UTC","2024-01-09 00:00:00.000",1,"signup","2024-01-09 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",2,"UTC","2024-01-09 00:00:00.000",1,"signup","2024-01-09 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",2,2,100]
