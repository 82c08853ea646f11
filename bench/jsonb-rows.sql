-- A batch's event rows expanded from one JSON parameter, as `json` and as `jsonb` (BENCHMARKS.md,
-- "Capture: rows as jsonb"): 100 rows shaped like capture's, expanded 500 times each way, twice.
--   psql -d <any scratch database> -f bench/jsonb-rows.sql
\timing off
create temp table rows_text as
  select json_agg(json_build_object(
    'ord', i, 'uuid', gen_random_uuid(), 'event', 'plan changed', 'distinct_id', 'existing-' || i,
    'person_id', 100000 + i, 'person_uuid', gen_random_uuid(),
    'properties', json_build_object('$ip', '127.0.0.1', '$lib', 'bench', 'round', 'warm', '$browser', 'Firefox',
      '$current_url', 'https://example.com/page/49', '$sent_at', '2026-12-02T16:24:12.471Z',
      '$set', json_build_object('plan', 'plan-2', '$browser', 'Firefox', '$current_url', 'https://example.com/page/49'),
      '$set_once', json_build_object('$initial_browser', 'Firefox', '$initial_current_url', 'https://example.com/page/49')),
    'person_properties', json_build_object('plan', 'plan-2', 'email', 'x' || i || '@example.com', '$browser', 'Firefox',
      '$current_url', 'https://example.com/page/49', '$initial_browser', 'Firefox',
      '$initial_current_url', 'https://example.com/page/1'),
    'timestamp', now()))::text as body
  from generate_series(1, 100) i;
select length(body) as bytes from rows_text;

create function pg_temp.expand_rows(times int, as_jsonb bool) returns bigint language plpgsql as $f$
declare
  total bigint := 0;
  body text;
  n bigint;
begin
  select r.body into body from rows_text r;
  for k in 1..times loop
    if as_jsonb then
      select count(*) + sum(length(v.properties::text) * 0) into n
      from jsonb_to_recordset(body::jsonb) as v (ord integer, uuid uuid, event text, distinct_id text, person_id bigint,
        person_uuid uuid, properties jsonb, person_properties jsonb, timestamp timestamptz);
    else
      select count(*) + sum(length(v.properties::text) * 0) into n
      from json_to_recordset(body::json) as v (ord integer, uuid uuid, event text, distinct_id text, person_id bigint,
        person_uuid uuid, properties jsonb, person_properties jsonb, timestamp timestamptz);
    end if;
    total := total + n;
  end loop;
  return total;
end $f$;

\timing on
select pg_temp.expand_rows(500, false) as json_rows;
select pg_temp.expand_rows(500, true) as jsonb_rows;
select pg_temp.expand_rows(500, false) as json_rows;
select pg_temp.expand_rows(500, true) as jsonb_rows;
