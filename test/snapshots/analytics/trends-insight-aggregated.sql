-- insights/trend {"events":[{"id":"$pageview","type":"events","order":0,"math":"total"}],"date_from":"2024-01-01","date_to":"2024-01-19","display":"ActionsTable"}

-- query 1
select '' as g, null as b, count(*) as v from events e where (e.team_id = $1 and e.event = $2 and true and true and ("e"."timestamp" >= ($3::timestamp at time zone $4) and "e"."timestamp" < ($5::timestamp at time zone $6))) group by 1
-- parameters: [1,"$pageview","2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC"]
