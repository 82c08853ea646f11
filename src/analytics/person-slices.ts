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

/** The lowest and highest person id of the project (both null when it has no persons). */
async function personIdSpan(context: ViewContext): Promise<{ lo: number | null; hi: number | null }> {
  const { rows } = await sql<{ lo: number | null; hi: number | null }>`
    select min(id) as lo, max(id) as hi from persons where team_id = ${context.teamId}`.execute(context.db);
  const number = (value: number | null | undefined) => (value === null || value === undefined ? null : Number(value));
  return { lo: number(rows[0]?.lo), hi: number(rows[0]?.hi) };
}

/** The person-id bounds between the slices (empty: one slice, everything). */
async function sliceBounds(context: ViewContext): Promise<number[]> {
  const wanted = context.slices ?? 1;
  if (wanted <= 1) return [];
  const { lo, hi } = await personIdSpan(context);
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
  return conditionsOn(sql.ref('e.person_key'), await sliceBounds(context));
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
  return Promise.all(conditionsOn(sql.ref('e.person_key'), bounds).map((slice, i) => work(slice, persons[i])));
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

/**
 * The project's persons as a subquery `p (id, …columns)`, to join to rows computed from events. On
 * Citus a per-person pass over events runs on the shards (events distributed by person key), and a
 * join of it with the table `persons` (by team_id, not co-located) cannot be planned ("events and
 * persons are not colocated"), nor of it with a plain subquery of persons; a materialized CTE is
 * read once, routed to the project's shard, and becomes an intermediate result each shard joins.
 * On one server it is the project's persons read once (by the key's prefix) and hash-joined.
 */
export function projectPersonsSql(
  teamId: number,
  columns: RawBuilder<unknown>,
  condition: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  return sql`with project_persons as materialized (
      ${slicePersonsSql(teamId, columns, condition)}
    ) select * from project_persons`;
}

/**
 * The project's persons of a slice (`condition` on `p`) as a subquery `p (id, …columns)`, to join to
 * per-person rows already computed from events (a materialized CTE): on Citus those rows are an
 * intermediate result, and the persons side is read once on the project's shard beside it.
 */
export function slicePersonsSql(
  teamId: number,
  columns: RawBuilder<unknown>,
  condition: RawBuilder<unknown> = sql`true`,
): RawBuilder<unknown> {
  return sql`select p.id, ${columns} from persons p where p.team_id = ${teamId} and ${condition}`;
}

/**
 * The first of the walk's ranges spans an eighth of the project's person ids: on Citus a round costs
 * about what scanning a sixteenth of a 100 000-person month does, and a page of 100 persons that one
 * in 125 persons matches lies in the first eighth.
 */
const FIRST_RANGE_PARTS = 8;

/**
 * The conditions on `e.person_key` of a walk over the project's person ids in growing ranges: the
 * first an eighth of the ids, each next one as wide as all before it (1/8, 1/8, 1/4, 1/2), the
 * first and last open (events of deleted persons may lie outside the persons' ids). One range,
 * `true`, for a project too small to split.
 */
async function growingRanges(context: ViewContext): Promise<RawBuilder<unknown>[]> {
  const { lo, hi } = await personIdSpan(context);
  if (lo === null || hi === null) return [sql`true`];
  const span = hi - lo + 1;
  if (span / FIRST_RANGE_PARTS < (context.minIdsPerSlice ?? MIN_IDS_PER_SLICE)) return [sql`true`];
  const bounds: number[] = [];
  for (let part = 1; part < FIRST_RANGE_PARTS; part *= 2)
    bounds.push(lo + Math.floor((span * part) / FIRST_RANGE_PARTS));
  return conditionsOn(sql.ref('e.person_key'), bounds);
}

/**
 * The first `wanted` rows in person-id order of a per-person selection, read range by range of
 * person ids (growingRanges) until that many are found: `read(range, limit)` answers up to `limit`
 * rows of the range, in person-id order. On Citus every shard holds a part of each range, and a
 * `limit` pushed down to the shards makes each shard find `limit` rows of its own: over the whole
 * project that scanned every shard to its end for a page one server finds in its first persons.
 * On one server the first ranges hold the page as the first persons did.
 */
export async function firstRowsByPerson<T>(
  context: ViewContext,
  wanted: number,
  read: (range: RawBuilder<unknown>, limit: number) => Promise<T[]>,
): Promise<T[]> {
  const found: T[] = [];
  if (wanted <= 0) return found;
  for (const range of await growingRanges(context)) {
    found.push(...(await read(range, wanted - found.length)));
    if (found.length >= wanted) break;
  }
  return found;
}
