-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"dau"}],"date_from":"2024-01-01","date_to":"2024-01-19","breakdown":"browser","breakdown_type":"event"}

-- query 1
select coalesce("e"."properties"->>$1, '') as g from events e where (e.team_id = $2 and e.event = $3 and true and true and ("e"."timestamp" >= ($4::timestamp at time zone $5) and "e"."timestamp" < ($6::timestamp at time zone $7)))
group by 1 order by count(*) desc, 1 limit $8
-- parameters: ["browser",1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC",25]

-- query 2
with c as materialized (
select k.g, (m << 0) as cov from (
select coalesce("e"."properties"->>$1, '') as g, bit_or(1::bigint << ((("e"."timestamp" at time zone $2))::date - $3::date)) as m
from events e where (e.team_id = $4 and e.event = $5 and true and true and coalesce("e"."properties"->>$6, '') in ($7, $8) and ("e"."timestamp" >= ($9::timestamp at time zone $10) and "e"."timestamp" < ($11::timestamp at time zone $12)) and e.person_key > 0 and true)
group by e.person_key, 1
) k
)
select c.g, sum((("cov" >> 0) & 1)::int) as "v0", sum((("cov" >> 1) & 1)::int) as "v1", sum((("cov" >> 2) & 1)::int) as "v2", sum((("cov" >> 3) & 1)::int) as "v3", sum((("cov" >> 4) & 1)::int) as "v4", sum((("cov" >> 5) & 1)::int) as "v5", sum((("cov" >> 6) & 1)::int) as "v6", sum((("cov" >> 7) & 1)::int) as "v7", sum((("cov" >> 8) & 1)::int) as "v8", sum((("cov" >> 9) & 1)::int) as "v9", sum((("cov" >> 10) & 1)::int) as "v10", sum((("cov" >> 11) & 1)::int) as "v11", sum((("cov" >> 12) & 1)::int) as "v12", sum((("cov" >> 13) & 1)::int) as "v13", sum((("cov" >> 14) & 1)::int) as "v14", sum((("cov" >> 15) & 1)::int) as "v15", sum((("cov" >> 16) & 1)::int) as "v16", sum((("cov" >> 17) & 1)::int) as "v17", sum((("cov" >> 18) & 1)::int) as "v18" from c group by c.g
-- parameters: ["browser","UTC","2024-01-01",1,"$pageview","browser","Chrome","Firefox","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]

-- query 3
with c as materialized (
select k.g, (m << 0) as cov from (
select coalesce("e"."properties"->>$1, '') as g, bit_or(1::bigint << ((("e"."timestamp" at time zone $2))::date - $3::date)) as m
from events e where (e.team_id = $4 and e.event = $5 and true and true and coalesce("e"."properties"->>$6, '') in ($7, $8) and ("e"."timestamp" >= ($9::timestamp at time zone $10) and "e"."timestamp" < ($11::timestamp at time zone $12)) and e.person_key > 0 and true)
group by e.person_key, 1
) k
)
select c.g, sum((("cov" >> 0) & 1)::int) as "v0", sum((("cov" >> 1) & 1)::int) as "v1", sum((("cov" >> 2) & 1)::int) as "v2", sum((("cov" >> 3) & 1)::int) as "v3", sum((("cov" >> 4) & 1)::int) as "v4", sum((("cov" >> 5) & 1)::int) as "v5", sum((("cov" >> 6) & 1)::int) as "v6", sum((("cov" >> 7) & 1)::int) as "v7", sum((("cov" >> 8) & 1)::int) as "v8", sum((("cov" >> 9) & 1)::int) as "v9", sum((("cov" >> 10) & 1)::int) as "v10", sum((("cov" >> 11) & 1)::int) as "v11", sum((("cov" >> 12) & 1)::int) as "v12", sum((("cov" >> 13) & 1)::int) as "v13", sum((("cov" >> 14) & 1)::int) as "v14", sum((("cov" >> 15) & 1)::int) as "v15", sum((("cov" >> 16) & 1)::int) as "v16", sum((("cov" >> 17) & 1)::int) as "v17", sum((("cov" >> 18) & 1)::int) as "v18" from c group by c.g
-- parameters: ["browser","UTC","2024-01-01",1,"$pageview","browser","Chrome","Firefox","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
