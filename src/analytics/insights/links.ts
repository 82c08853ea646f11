// Links from an insight's numbers to the persons views that list them: the request's own
// parameters (body ones JSON-encoded into the query string) with the point's parameters set.
import { shownValue } from '../../json-shape.ts';
import { formatLocal, type LocalRange } from '../date-range.ts';
import type { RawParams } from '../params.ts';

// Paging and rendering choices of the insight request are not part of the filter.
const NOT_FILTERS = new Set(['limit', 'offset', 'format', 'refresh']);

export function personsUrl(teamId: number, view: string, raw: RawParams, point: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...raw, ...point })) {
    if (NOT_FILTERS.has(key) || value === undefined || value === null) continue;
    params.set(key, shownValue(value));
  }
  return `/api/projects/${teamId}/persons/${view}/?${params}`;
}

/** A range as the exact `date_from`/`date_to` a persons view reads back to the same range. */
export function rangeParams(range: LocalRange): Record<string, string> {
  return {
    date_from: range.from ? formatLocal(range.from) : 'all',
    date_to: formatLocal(new Date(range.to.getTime() - 1)),
    explicit_date: 'true',
  };
}
