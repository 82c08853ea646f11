// A point of an insight (a funnel step's converted or dropped-off persons, a retention cell, a
// paths link, a day of a trend) and how its persons link is read: only a persons view of this
// project is followed, and each page says how many of the persons counted were deleted since.
import type { Person } from '../../api/types.ts';

export interface InsightPoint {
  /** What a person reads: "Dropped off, 2. signed up". */
  title: string;
  /** The persons view of the point, as the API gave it. */
  url: string;
  /** The number the chart shows when it counts persons (not events), else null. */
  persons: number | null;
  /** Retention: only the cohort's persons whose `appearances` hold 1 at this index. */
  appearance?: number;
}

export type PointHandler = (point: InsightPoint) => void;

/**
 * The API path of a persons link, refused unless it is a persons view of this project: a link is
 * fetched with the key, so it must never lead anywhere else. Only its path is kept (the API writes
 * its links absolute from its configured site URL; the console asks its own origin).
 */
export function personsPath(url: string, projectId: number, origin: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url, origin);
  } catch {
    return null;
  }
  if (!parsed.pathname.startsWith(`/api/projects/${projectId}/persons/`)) return null;
  return `${parsed.pathname}${parsed.search}`;
}

export interface PersonsPage {
  persons: Person[];
  next: string | null;
  /** Persons the point's events point to that no longer exist. */
  missing: number;
  /** Rows the view answered before `appearance` narrowed them (retention). */
  read: number;
}

/** One page of a persons view (every analytical envelope, retention's included). */
export function personsPage(answer: unknown, appearance?: number): PersonsPage {
  const body = (answer ?? {}) as {
    results?: Array<{ people?: Person[] }>;
    result?: Array<{ person?: Person; appearances?: number[] }>;
    next?: string | null;
    missing_persons?: number;
  };
  const missing = typeof body.missing_persons === 'number' ? body.missing_persons : 0;
  const next = typeof body.next === 'string' ? body.next : null;
  if (body.results) {
    const persons = body.results.flatMap((entry) => entry.people ?? []);
    return { persons, next, missing, read: persons.length };
  }
  const rows = body.result ?? [];
  const persons = rows
    .filter((row) => appearance === undefined || row.appearances?.[appearance] === 1)
    .flatMap((row) => (row.person ? [row.person] : []));
  return { persons, next, missing, read: rows.length };
}

/**
 * How many of a point's persons were deleted since it was counted, once every page is read. A
 * retention cell's envelope counts the deleted of its whole cohort, so a cell's own is its number
 * less those listed; elsewhere the envelopes' `missing_persons` add up.
 */
export function deletedSince(point: InsightPoint, listed: number, missing: number, complete: boolean): number {
  if (point.appearance !== undefined && point.appearance > 0) {
    return complete && point.persons !== null ? Math.max(0, point.persons - listed) : 0;
  }
  return missing;
}
