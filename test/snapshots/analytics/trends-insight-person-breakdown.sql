-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","breakdown":"plan","breakdown_type":"person"}

-- query 1
select coalesce("e"."person_properties"->>$1, '') as g from events e where (e.team_id = $2 and e.event = $3 and true and true and ("e"."timestamp" >= ($4::timestamp at time zone $5) and "e"."timestamp" < ($6::timestamp at time zone $7)))
group by 1 order by count(*) desc, 1 limit $8
-- parameters: ["plan",1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",25]

-- query 2
select x.g, to_char("x"."b", 'YYYY-MM-DD HH24:MI:SS') as b, x.v from (
select coalesce("e"."person_properties"->>$1, '') as g, date_trunc($2, ("e"."timestamp" at time zone $3)) as b, count(*) as v from events e where (e.team_id = $4 and e.event = $5 and true and true and coalesce("e"."person_properties"->>$6, '') in ($7, $8) and ("e"."timestamp" >= ($9::timestamp at time zone $10) and "e"."timestamp" < ($11::timestamp at time zone $12))) group by 1, 2
) x
-- parameters: ["plan","day","UTC",1,"$pageview","plan","","pro","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]

-- query 3
select x.g, to_char("x"."b", 'YYYY-MM-DD HH24:MI:SS') as b, x.v from (
select coalesce("e"."person_properties"->>$1, '') as g, date_trunc($2, ("e"."timestamp" at time zone $3)) as b, count(*) as v from events e where (e.team_id = $4 and e.event = $5 and true and true and coalesce("e"."person_properties"->>$6, '') in ($7, $8) and ("e"."timestamp" >= ($9::timestamp at time zone $10) and "e"."timestamp" < ($11::timestamp at time zone $12))) group by 1, 2
) x
-- parameters: ["plan","day","UTC",1,"$pageview","plan","","pro","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
