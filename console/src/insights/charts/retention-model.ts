// A retention answer as a cohort table: a row per cohort named by its date, a column per period
// after it, each cell the share of the cohort that came back (period 0 is the cohort itself);
// the periods still to come have no cell at all.

interface RetentionRowWire {
  date?: string;
  label?: string;
  values?: Array<{ count?: number; people_url?: string }>;
  people_url?: string;
}

export interface RetentionCell {
  count: number;
  /** Of the cohort, 0…1. */
  fraction: number;
  /** Shading step 0…5 by fraction. */
  shade: number;
}

export interface RetentionCohort {
  /** "8 Jan 2024" (or with the hour for hourly periods). */
  label: string;
  size: number;
  /** The cohort's persons view: each person with the periods they came back in. */
  url: string | null;
  /** One per period that has happened; the rest of the row is future. */
  cells: RetentionCell[];
}

export interface RetentionTableModel {
  /** "Day", "Week", … as the answer names its periods. */
  period: string;
  periods: number;
  cohorts: RetentionCohort[];
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = 86_400_000;

/**
 * A cohort's date. The wire gives the instant its period starts in the project's timezone, which
 * the console does not know: the nearest UTC midnight is that local date for every offset under
 * 12 hours; hourly cohorts show the instant's UTC hour.
 */
export function cohortLabel(date: string | undefined, period: string): string {
  const at = date ? Date.parse(date) : NaN;
  if (Number.isNaN(at)) return date ?? '';
  if (period === 'Hour') {
    const t = new Date(at);
    const hour = `${String(t.getUTCHours()).padStart(2, '0')}:00 UTC`;
    return `${t.getUTCDate()} ${MONTHS[t.getUTCMonth()]} ${t.getUTCFullYear()} ${hour}`;
  }
  const day = new Date(Math.round(at / DAY) * DAY);
  return `${day.getUTCDate()} ${MONTHS[day.getUTCMonth()]} ${day.getUTCFullYear()}`;
}

export function retentionTable(result: unknown, period?: string): RetentionTableModel {
  const rows = Array.isArray(result) ? (result as RetentionRowWire[]) : [];
  const named = period || /^(\w+) \d+$/.exec(rows[0]?.label ?? '')?.[1] || 'Period';
  const cohorts = rows.map((row) => {
    const size = row.values?.[0]?.count ?? 0;
    return {
      label: cohortLabel(row.date, named),
      size,
      url: row.people_url ?? row.values?.[0]?.people_url ?? null,
      cells: (row.values ?? []).map((value) => {
        const count = value.count ?? 0;
        const fraction = size > 0 ? count / size : 0;
        return { count, fraction, shade: count === 0 ? 0 : Math.max(1, Math.round(fraction * 5)) };
      }),
    };
  });
  return { period: named, periods: Math.max(0, ...cohorts.map((cohort) => cohort.cells.length)), cohorts };
}
