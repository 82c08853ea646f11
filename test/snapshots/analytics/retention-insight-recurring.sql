-- insights/retention {"target_entity":{"id":"signup","type":"events"},"date_to":"2024-01-19"}

-- query 1
select x.cohort, x.r, count(*) as persons from (select t.cohort, unnest(t.later) as r from (
select s.cohorts[s.n] as cohort, s.cohorts[s.n:] as later
from (select b.cohorts, generate_subscripts(b.cohorts, 1) as n from (select e.person_key as person_id, array_agg(distinct (("e"."timestamp" at time zone $1)::date - $2::timestamp::date)) filter (where e.event = $3) as cohorts, null::int[] as returns from events e where (e.team_id = $4 and e.person_key > 0 and true and true and true and ((e.event = $5 or e.event = $6) and ("e"."timestamp" >= ($7::timestamp at time zone $8) and "e"."timestamp" < ($9::timestamp at time zone $10)))) group by e.person_key) b) s
) t) x group by 1, 2
-- parameters: ["UTC","2024-01-09 00:00:00.000","signup",1,"signup","signup","2024-01-09 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
