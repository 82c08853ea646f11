-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"weekly_active"}],"date_from":"2024-01-01","date_to":"2024-01-19"}

-- query 1
with c as materialized (
select k.g, (m << 0) | (m << 1) | (m << 2) | (m << 3) | (m << 4) | (m << 5) | (m << 6) as cov from (
select '' as g, bit_or(1::bigint << ((("e"."timestamp" at time zone $1))::date - $2::date)) as m
from events e where (e.team_id = $3 and e.event = $4 and true and true and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)) and e.person_key > 0 and true)
group by e.person_key, 1
) k
)
select c.g, sum((("cov" >> 6) & 1)::int) as "v0", sum((("cov" >> 7) & 1)::int) as "v1", sum((("cov" >> 8) & 1)::int) as "v2", sum((("cov" >> 9) & 1)::int) as "v3", sum((("cov" >> 10) & 1)::int) as "v4", sum((("cov" >> 11) & 1)::int) as "v5", sum((("cov" >> 12) & 1)::int) as "v6", sum((("cov" >> 13) & 1)::int) as "v7", sum((("cov" >> 14) & 1)::int) as "v8", sum((("cov" >> 15) & 1)::int) as "v9", sum((("cov" >> 16) & 1)::int) as "v10", sum((("cov" >> 17) & 1)::int) as "v11", sum((("cov" >> 18) & 1)::int) as "v12", sum((("cov" >> 19) & 1)::int) as "v13", sum((("cov" >> 20) & 1)::int) as "v14", sum((("cov" >> 21) & 1)::int) as "v15", sum((("cov" >> 22) & 1)::int) as "v16", sum((("cov" >> 23) & 1)::int) as "v17", sum((("cov" >> 24) & 1)::int) as "v18" from c group by c.g
-- parameters: ["UTC","2023-12-26",1,"$pageview","2023-12-26 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
