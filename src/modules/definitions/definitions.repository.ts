// Reads of the definitions tables (written by capture: src/ingestion/definitions.ts) and the
// bounded reads of events behind volumes and values.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import { containsPattern } from '../../db/like-pattern.ts';
import type { PageRequest } from '../../wire/page.ts';

/** `column` contains every whitespace-separated term of `search`, ignoring case (LIKE-escaped). */
function matchesTerms(column: Expression<string>, search: string | undefined): Expression<SqlBool> {
  const terms = (search ?? '').split(/\s+/).filter(Boolean);
  if (terms.length === 0) return sql<SqlBool>`true`;
  return sql<SqlBool>`(${sql.join(
    terms.map((term) => sql`${column} ilike ${containsPattern(term)}`),
    sql` and `,
  )})`;
}

export interface EventDefinitionRow {
  id: string;
  name: string;
  created_at: Date;
  last_seen_at: Date;
}

export async function listEventDefinitionRows(
  db: Db,
  teamId: number,
  input: { search?: string; page: PageRequest },
): Promise<{ count: number; rows: EventDefinitionRow[] }> {
  const base = db
    .selectFrom('event_definitions')
    .where('team_id', '=', teamId)
    .where(({ ref }) => matchesTerms(ref('name'), input.search));
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['id', 'name', 'created_at', 'last_seen_at'])
      .orderBy('last_seen_at', 'desc')
      .orderBy('name')
      .limit(input.page.limit)
      .offset(input.page.offset)
      .execute(),
  ]);
  return { count: Number(total.n), rows };
}

/** Events of each name with a timestamp in [since, until]: one range of the (team, event, time) index per name. */
export async function countEventsByName(
  db: Db,
  teamId: number,
  names: string[],
  since: Date,
  until: Date,
): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .selectFrom('events')
    .select(['event', (eb) => eb.fn.countAll<number>().as('n')])
    .where('team_id', '=', teamId)
    .where('event', '=', sql<string>`any(${names}::text[])`)
    .where('timestamp', '>=', since)
    .where('timestamp', '<=', until)
    .groupBy('event')
    .execute();
  return new Map(rows.map((row) => [row.event, Number(row.n)]));
}

export interface PropertyDefinitionRow {
  id: string;
  name: string;
  property_type: string | null;
}

export interface PropertyDefinitionFilter {
  kind: number;
  search?: string;
  /** Only keys seen on these events. */
  eventNames: string[] | null;
  isNumerical: boolean | null;
  hidden: readonly string[];
}

export async function listPropertyDefinitionRows(
  db: Db,
  teamId: number,
  filter: PropertyDefinitionFilter,
  page: PageRequest,
): Promise<{ count: number; rows: PropertyDefinitionRow[] }> {
  let base = db
    .selectFrom('property_definitions as d')
    .where('d.team_id', '=', teamId)
    .where('d.kind', '=', filter.kind)
    .where(({ ref }) => matchesTerms(ref('d.name'), filter.search));
  if (filter.hidden.length > 0) base = base.where('d.name', '<>', sql<string>`all(${filter.hidden}::text[])`);
  if (filter.isNumerical !== null) {
    base = base.where(
      filter.isNumerical
        ? sql<SqlBool>`d.property_type = 'Numeric'`
        : sql<SqlBool>`d.property_type is distinct from 'Numeric'`,
    );
  }
  const names = filter.eventNames;
  if (names !== null) {
    base = base.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('event_properties as p')
          .select('p.property')
          .where('p.team_id', '=', teamId)
          .where('p.event', '=', sql<string>`any(${names}::text[])`)
          .whereRef('p.property', '=', 'd.name'),
      ),
    );
  }
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['d.id', 'd.name', 'd.property_type'])
      .orderBy('d.name')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(total.n), rows };
}

/**
 * The most frequent values of an event property among a bounded sample: at most `sample` events of
 * the names that carry the key, with a timestamp in [since, until]; text values, at most `cap`.
 */
export async function mostFrequentValues(
  db: Db,
  teamId: number,
  input: {
    key: string;
    eventNames: string[];
    contains?: string;
    since: Date;
    until: Date;
    sample: number;
    cap: number;
  },
): Promise<string[]> {
  if (input.eventNames.length === 0) return [];
  const value = sql<string>`properties ->> ${input.key}`;
  const contains = input.contains ? sql`and ${value} ilike ${containsPattern(input.contains)}` : sql``;
  const { rows } = await sql<{ name: string }>`select name from (
      select ${value} as name from events
      where team_id = ${teamId} and event = any(${input.eventNames}::text[])
        and timestamp >= ${input.since} and timestamp <= ${input.until}
        and ${value} is not null ${contains}
      limit ${input.sample}) sample
    group by name order by count(*) desc, name limit ${input.cap}`.execute(db);
  return rows.map((row) => row.name);
}

/** The event names that carried the key (all of them, or those among `among`). */
export async function eventsCarrying(db: Db, teamId: number, key: string, among: string[] | null): Promise<string[]> {
  let query = db
    .selectFrom('event_properties')
    .select('event')
    .where('team_id', '=', teamId)
    .where('property', '=', key);
  if (among !== null) query = query.where('event', '=', sql<string>`any(${among}::text[])`);
  const rows = await query.execute();
  return rows.map((row) => row.event);
}
