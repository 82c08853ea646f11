// What the trends views (the persons view of a point, the insight's series) share: the displays
// that answer one number for the whole range, and the maths a series counts or aggregates with.
import { sql, type RawBuilder } from 'kysely';

export const NON_TIME_SERIES = [
  'ActionsLineGraphCumulative',
  'ActionsTable',
  'ActionsPie',
  'ActionsBarValue',
  'WorldMap',
  'BoldNumber',
  'ActionsDonut',
  'CalendarHeatmap',
];
export const PROPERTY_MATHS: Record<string, (value: RawBuilder<unknown>) => RawBuilder<unknown>> = {
  sum: (v) => sql`sum(${v})`,
  avg: (v) => sql`avg(${v})`,
  min: (v) => sql`min(${v})`,
  max: (v) => sql`max(${v})`,
  median: (v) => sql`percentile_cont(0.5) within group (order by ${v})`,
  p75: (v) => sql`percentile_cont(0.75) within group (order by ${v})`,
  p90: (v) => sql`percentile_cont(0.9) within group (order by ${v})`,
  p95: (v) => sql`percentile_cont(0.95) within group (order by ${v})`,
  p99: (v) => sql`percentile_cont(0.99) within group (order by ${v})`,
};
export const COUNT_MATHS = ['total', 'dau', 'unique_session', 'weekly_active', 'monthly_active'];

/** A math property's numeric value on the event row `e` (null when it is not a JSON number). */
export function mathPropertySql(property: string): RawBuilder<unknown> {
  const value = sql`e.properties->${property}`;
  return sql`case when jsonb_typeof(${value}) = 'number' then (${value})::text::numeric end`;
}
