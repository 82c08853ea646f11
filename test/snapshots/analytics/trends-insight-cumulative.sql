-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"dau"}],"date_from":"2024-01-01","date_to":"2024-01-19","display":"ActionsLineGraphCumulative"}

-- query 1
select f.g, to_char("f"."b", 'YYYY-MM-DD HH24:MI:SS') as b, count(*) as v from (
select '' as g, e.person_key as k, min(date_trunc($1, ("e"."timestamp" at time zone $2))) as b
from events e where (e.team_id = $3 and e.event = $4 and true and true and ("e"."timestamp" >= ($5::timestamp at time zone $6) and "e"."timestamp" < ($7::timestamp at time zone $8)) and e.person_key > 0 and true) group by 1, 2
) f group by f.g, f.b
-- parameters: ["day","UTC",1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
