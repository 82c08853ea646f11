// Dates that person filters and views read from requests: one without an offset is UTC (as stored
// values are read), never the server's time zone.

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME_WITHOUT_ZONE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(:\d{2}(\.\d+)?)?)$/;

export const isDateOnly = (value: string) => DATE_ONLY.test(value);

/** A date (its midnight), a date-time, or anything `Date` reads; Invalid Date when it is none. */
export function parseUtcDate(value: string): Date {
  if (isDateOnly(value)) return new Date(`${value}T00:00:00Z`);
  const local = DATE_TIME_WITHOUT_ZONE.exec(value);
  return new Date(local ? `${local[1]}T${local[2]}Z` : value);
}
