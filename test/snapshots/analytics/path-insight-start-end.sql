-- insights/path {"date_from":"2024-01-01","date_to":"2024-01-19","start_point":"/home","end_point":"purchase","include_event_types":["$pageview","custom_event"]}

-- query 1
select p.source, p.target, count(*) as value, sum(p.ms)::float8 as total_ms, sum(p.timed) as timed
from (
select k.prev_key as source, k.key as target, sum(extract(epoch from k.ts - k.prev_ts) * 1000) as ms, count(k.prev_ts) as timed
from (
with sessions as (
select *, sum(case when prev_ts is null or prev_ts <= ts - interval '30 minutes' then 1 else 0 end) over (partition by person_id order by ts, id) as session
from (select *, lag(ts) over (partition by person_id order by ts, id) as prev_ts from (select i.* from (select e.person_key as person_id, e.timestamp as ts, e.id, (coalesce(
case when $1 and e.event = '$pageview' then case when e.page like '_%/' then left(e.page, -1) else e.page end end,
case when $2 and e.event = '$screen' then e.page end,
e.event)) as item from events e where (e.team_id = $3 and e.person_key > 0 and ("e"."timestamp" >= ($4::timestamp at time zone $5) and "e"."timestamp" < ($6::timestamp at time zone $7)) and true and true and (e.event = '$pageview' or e.event not like '$%') and true and true)) i where true) i) gaps
), positioned as (
select *, row_number() over (partition by person_id, session order by ts, id) as pos
from (select *, lag(item) over (partition by person_id, session order by ts, id) as prev_item from sessions) d
where prev_item is distinct from item
), started as (
select *, min(pos) filter (where item = $8) over (partition by person_id, session) as start_pos from positioned
), bounded as (
select *, min(pos) filter (where item = $9 and pos >= coalesce(start_pos, 1)) over (partition by person_id, session) as end_pos from started
), cutted as (
select person_id, session, item, ts, pos - coalesce(start_pos, 1) + 1 as i, count(*) over (partition by person_id, session) as cut_len
from bounded where start_pos is not null and pos >= start_pos and end_pos is not null and pos <= end_pos
), limited as (
select person_id, session, item, ts, i as i from cutted where i between 1 and $10
)
select person_id, session, i, key, ts, prev_key, prev_ts, i = max(i) over (partition by person_id, session) as last
from (
select person_id, session, i, i || '_' || item as key, ts,
lag(i || '_' || item) over (partition by person_id, session order by i) as prev_key,
lag(ts) over (partition by person_id, session order by i) as prev_ts
from limited
) keyed) k
where k.prev_key is not null
group by k.person_id, 1, 2
) p
group by 1, 2
-- parameters: [true,false,1,"2024-01-01 00:00:00.000","UTC","2024-01-20 00:00:00.000","UTC","/home","purchase",5]
