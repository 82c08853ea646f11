// PostgreSQL runs window passes in one process; a per-person view split by ranges of person ids
// runs in several backends at once, as a parallel scan does. Persons do not cross slices, so per-
// person numbers add up across them and pages merge.
import { sql, type RawBuilder } from 'kysely';
import type { Config } from '../config.ts';
import type { ViewContext } from './view-context.ts';

// Splitting a small project costs more round trips than it saves.
const MIN_IDS_PER_SLICE = 2000;

/**
 * Slices per query: the configured number (whatever the project's size), else 3 on PostgreSQL (a
 * parallel scan's leader and two workers) for projects of some size, and 1 in-process.
 */
export function slicesFor(config: Pick<Config, 'analyticsSlices' | 'databaseUrl'>): {
  slices: number;
  minIdsPerSlice: number;
} {
  if (config.analyticsSlices !== null) return { slices: config.analyticsSlices, minIdsPerSlice: 1 };
  // A database URL is a PostgreSQL server; without one the database is PGlite, in this process.
  return { slices: config.databaseUrl !== null ? 3 : 1, minIdsPerSlice: MIN_IDS_PER_SLICE };
}

/** The person-id bounds between the slices (empty: one slice, everything). */
async function sliceBounds(context: ViewContext): Promise<number[]> {
  const wanted = context.slices ?? 1;
  if (wanted <= 1) return [];
  const { rows } = await sql<{ lo: number | null; hi: number | null }>`
    select min(id) as lo, max(id) as hi from persons where team_id = ${context.teamId}`.execute(context.db);
  const lo = rows[0]?.lo === null || rows[0]?.lo === undefined ? null : Number(rows[0].lo);
  const hi = rows[0]?.hi === null || rows[0]?.hi === undefined ? null : Number(rows[0].hi);
  if (lo === null || hi === null) return [];
  const parts = Math.min(wanted, Math.floor((hi - lo + 1) / (context.minIdsPerSlice ?? MIN_IDS_PER_SLICE)));
  if (parts <= 1) return [];
  return Array.from({ length: parts - 1 }, (_, i) => lo + Math.floor(((hi - lo + 1) * (i + 1)) / parts));
}

/** The conditions on a person-id column that split the project's persons at `bounds`. */
function conditionsOn(column: RawBuilder<unknown>, bounds: number[]): RawBuilder<unknown>[] {
  if (bounds.length === 0) return [sql`true`];
  // Events of deleted persons may point outside [lo, hi]: the first and last slices are open.
  return Array.from({ length: bounds.length + 1 }, (_, i) => {
    if (i === 0) return sql`${column} < ${bounds[0]}`;
    if (i === bounds.length) return sql`${column} >= ${bounds[bounds.length - 1]}`;
    return sql`(${column} >= ${bounds[i - 1]} and ${column} < ${bounds[i]})`;
  });
}

/** Conditions on the event row `e` that split the project's persons into `context.slices` id ranges. */
export async function personSlices(context: ViewContext): Promise<RawBuilder<unknown>[]> {
  return conditionsOn(sql.ref('e.person_id'), await sliceBounds(context));
}

/** Runs `work` on every slice at once (each its own connection on PostgreSQL). */
export async function acrossSlices<T>(
  context: ViewContext,
  work: (slice: RawBuilder<unknown>) => Promise<T>,
): Promise<T[]> {
  return Promise.all((await personSlices(context)).map(work));
}

/**
 * As acrossSlices, with the same slice also as a condition on the persons row `p` (`p.id`), so a
 * join with persons reads only the slice's persons.
 */
export async function acrossPersonSlices<T>(
  context: ViewContext,
  work: (slice: RawBuilder<unknown>, persons: RawBuilder<unknown>) => Promise<T>,
): Promise<T[]> {
  const bounds = await sliceBounds(context);
  const persons = conditionsOn(sql.ref('p.id'), bounds);
  return Promise.all(conditionsOn(sql.ref('e.person_id'), bounds).map((slice, i) => work(slice, persons[i])));
}

/** Adds up numeric rows of the slices by their key columns. */
export function sumRows<T extends Record<string, unknown>>(parts: T[][], keys: (keyof T)[], values: (keyof T)[]): T[] {
  const merged = new Map<string, T>();
  for (const row of parts.flat()) {
    const key = JSON.stringify(keys.map((k) => row[k]));
    const existing = merged.get(key);
    if (!existing) {
      merged.set(key, { ...row, ...Object.fromEntries(values.map((v) => [v, Number(row[v] ?? 0)])) });
      continue;
    }
    for (const v of values)
      (existing as Record<string, unknown>)[v as string] = Number(existing[v] ?? 0) + Number(row[v] ?? 0);
  }
  return [...merged.values()];
}
