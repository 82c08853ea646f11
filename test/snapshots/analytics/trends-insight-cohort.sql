-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","breakdown":[1,"all"],"breakdown_type":"cohort"}

-- query 1
select x.g, to_char("x"."b", 'YYYY-MM-DD HH24:MI:SS') as b, x.v from (
select '' as g, date_trunc($1, ("e"."timestamp" at time zone $2)) as b, count(*) as v from events e where (e.team_id = $3 and e.event = $4 and true and true and ("e"."person_key" in (select cp.person_id from cohort_people cp where cp.team_id = $5::integer and cp.cohort_id = $6::integer)) and ("e"."timestamp" >= ($7::timestamp at time zone $8) and "e"."timestamp" < ($9::timestamp at time zone $10))) group by 1, 2
) x
-- parameters: ["day","UTC",1,"$pageview",1,1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]

-- query 2
select x.g, to_char("x"."b", 'YYYY-MM-DD HH24:MI:SS') as b, x.v from (
select '' as g, date_trunc($1, ("e"."timestamp" at time zone $2)) as b, count(*) as v from events e where (e.team_id = $3 and e.event = $4 and true and true and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8))) group by 1, 2
) x
-- parameters: ["day","UTC",1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
