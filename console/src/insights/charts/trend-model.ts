// Trends, stickiness and lifecycle answers as one chart model: x labels, and series of numbers each
// with the persons link of every point. A lifecycle's series are its four statuses of one event,
// named once: the legend reads "New", "Dormant", not the event again and again.

export interface ChartSeries {
  label: string;
  values: number[];
  /** The persons view of each point, as the API gave it, or null. */
  urls: Array<string | null>;
  /** Whether the values count persons (not events): then a point's persons list can be checked against it. */
  countsPersons: boolean;
}

export interface ChartModel {
  labels: string[];
  series: ChartSeries[];
  /** Bars side by side, or stacked: positive values piled up, negative ones down (lifecycle). */
  style: 'line' | 'bars' | 'stacked';
  /** What every series shares, said once (the lifecycle's event), or null. */
  subject: string | null;
}

interface TrendSeriesWire {
  label?: string;
  action?: { math?: string; name?: string; custom_name?: string | null } | null;
  data?: number[];
  labels?: string[];
  days?: Array<string | number>;
  breakdown_value?: unknown;
  status?: string;
  persons_urls?: Array<{ url?: string } | null>;
}

export type TrendKind = 'trends' | 'stickiness' | 'lifecycle';

const PERSON_MATHS = new Set(['dau', 'weekly_active', 'monthly_active', 'unique_group']);
const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const capital = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

function xLabels(first: TrendSeriesWire | undefined): string[] {
  if (first?.labels) return first.labels;
  if (first?.days) return first.days.map(String);
  return (first?.data ?? []).map((_, index) => String(index + 1));
}

export function trendModel(kind: TrendKind, result: unknown): ChartModel {
  const items = Array.isArray(result) ? (result as TrendSeriesWire[]) : [];
  const labels = xLabels(items[0]);
  const events = [...new Set(items.map((item) => item.action?.custom_name || item.action?.name).filter(Boolean))];
  const lifecycle = kind === 'lifecycle';
  const series = items.map((item) => {
    const base = lifecycle && item.status ? capital(item.status) : (item.label ?? 'Series');
    const breakdown = item.breakdown_value !== undefined ? text(item.breakdown_value) : '';
    // The trends endpoint names a broken-down series "<event> - <value>" already: the value once.
    const suffix = ` - ${breakdown}`;
    const named = breakdown !== '' && base.endsWith(suffix) ? base.slice(0, -suffix.length) : base;
    return {
      label: [named, breakdown].filter((part) => part !== '').join(' · '),
      values: item.data ?? [],
      urls: (item.data ?? []).map((_, index) => item.persons_urls?.[index]?.url ?? null),
      countsPersons: kind !== 'trends' || PERSON_MATHS.has(item.action?.math ?? ''),
    };
  });
  return {
    labels,
    series,
    style: lifecycle ? 'stacked' : 'line',
    subject: lifecycle && events.length === 1 ? String(events[0]) : null,
  };
}
