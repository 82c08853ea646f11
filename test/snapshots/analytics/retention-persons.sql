-- persons/retention {"target_entity":{"id":"signup","type":"events"},"date_to":"2024-01-19","selected_interval":2}

-- query 1
select c.person_id, array_agg(r.period) filter (where r.period > $1) as periods, count(r.period) filter (where r.period > $2) as returns
from (select c.person_id from (select distinct e.person_key as person_id, (("e"."timestamp" at time zone $3)::date - $4::timestamp::date) as cohort from events e where (e.team_id = $5 and e.person_key > 0 and true and true and true and e.event = $6 and ("e"."timestamp" >= ($7::timestamp at time zone $8) and "e"."timestamp" < ($9::timestamp at time zone $10)))) c where c.cohort = $11) c
left join (select distinct e.person_key as person_id, (("e"."timestamp" at time zone $12)::date - $13::timestamp::date) as period from events e where (e.team_id = $14 and e.person_key > 0 and true and true and true and e.event = $15 and ("e"."timestamp" >= ($16::timestamp at time zone $17) and "e"."timestamp" < ($18::timestamp at time zone $19)))) r on r.person_id = c.person_id
group by c.person_id
order by 3 desc, c.person_id
limit $20
-- parameters: [2,2,"UTC","2024-01-09 00:00:00.000",1,"signup","2024-01-09 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",2,"UTC","2024-01-09 00:00:00.000",1,"signup","2024-01-09 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",100]
