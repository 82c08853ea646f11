// Queries over a project's persons: lookup by id or uuid, the filtered list and its count, keyset
// chunks for exports, deletion and splitting.
import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { containsPattern } from '../../db/like-pattern.ts';
import { runPrepared } from '../../db/prepared.ts';
import type { JsonObject } from '../../db/schema.ts';
import { personsWhereSql, type FilterNode } from '../../filters/property-filter.ts';
import type { PageRequest } from '../../wire/page.ts';
import { isUuid } from '../../wire/ids.ts';
import type { PersonRecord } from './person.serializer.ts';

export type PersonRef = { id: number } | { uuid: string };

export interface PersonFilters {
  distinctId?: string;
  email?: string;
  search?: string;
  properties?: FilterNode;
}

export interface PersonRowLite {
  id: number;
  uuid: string;
  properties: JsonObject;
  created_at: Date;
}

export async function findPersonRow(db: Db, teamId: number, ref: PersonRef): Promise<PersonRowLite | undefined> {
  let query = db.selectFrom('persons').select(['id', 'uuid', 'properties', 'created_at']).where('team_id', '=', teamId);
  query = 'id' in ref ? query.where('id', '=', ref.id) : query.where('uuid', '=', ref.uuid.toLowerCase());
  return query.executeTakeFirst();
}

/** Distinct ids of many persons at once, each list in the order the ids were attached. */
export async function loadDistinctIds(db: Db, teamId: number, personIds: number[]): Promise<Map<number, string[]>> {
  const byPerson = new Map<number, string[]>(personIds.map((id) => [id, []]));
  if (personIds.length === 0) return byPerson;
  const rows = await db
    .selectFrom('person_distinct_ids')
    .select(['person_id', 'distinct_id'])
    .where('team_id', '=', teamId)
    .where('person_id', 'in', personIds)
    .orderBy('person_id')
    .orderBy('id')
    .execute();
  for (const row of rows) if (row.person_id !== null) byPerson.get(row.person_id)?.push(row.distinct_id);
  return byPerson;
}

/** Loads persons by id with their distinct ids, in the order of the ids given. */
export async function loadPersons(db: Db, teamId: number, personIds: number[]): Promise<PersonRecord[]> {
  if (personIds.length === 0) return [];
  const [rows, distinctIds] = await Promise.all([
    db
      .selectFrom('persons')
      .select(['id', 'uuid', 'properties', 'created_at'])
      .where('team_id', '=', teamId)
      .where('id', 'in', personIds)
      .execute(),
    loadDistinctIds(db, teamId, personIds),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return personIds.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ ...row, distinct_ids: distinctIds.get(id) ?? [] }] : [];
  });
}

/** The person with its distinct ids, in one (prepared) statement. */
export async function findPerson(db: Db, teamId: number, ref: PersonRef): Promise<PersonRecord | undefined> {
  const match = 'id' in ref ? sql`p.id = ${ref.id}::bigint` : sql`p.uuid = ${ref.uuid.toLowerCase()}::uuid`;
  const query = sql<PersonRecord>`
    select p.id, p.uuid, p.properties, p.created_at, ${distinctIdsOf(teamId, 'p')} as distinct_ids
    from persons p where p.team_id = ${teamId}::integer and ${match}`;
  return (await runPrepared(db, query.compile(db)))[0];
}

/** The WHERE of the list over `persons as p` (the team condition included). */
function conditionsOf(teamId: number, filters: PersonFilters): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [sql<SqlBool>`p.team_id = ${teamId}::integer`];
  if (filters.distinctId !== undefined) {
    conditions.push(
      sql<SqlBool>`p.id in (select d.person_id from person_distinct_ids d where d.team_id = ${teamId}::integer and d.distinct_id = ${filters.distinctId}::text)`,
    );
  }
  // Spelled as the index persons_email is, so the planner uses it.
  if (filters.email !== undefined) {
    // The prefix comparison is what the persons_email index holds; the full one decides.
    conditions.push(
      sql<SqlBool>`left(p.email, 200) = left(${filters.email}::text, 200) and p.email = ${filters.email}::text`,
    );
  }
  if (filters.search !== undefined) conditions.push(searchCondition(teamId, filters.search));
  if (filters.properties) {
    conditions.push(personsWhereSql(filters.properties, teamId));
  }
  return conditions;
}

/** Substring of email or name (trigram indexes), or an exact distinct id, or an exact uuid: a union of index lookups. */
function searchCondition(teamId: number, term: string): Expression<SqlBool> {
  const pattern = containsPattern(term);
  const byUuid = isUuid(term)
    ? sql`union all select s.id from persons s where s.team_id = ${teamId}::integer and s.uuid = ${term.toLowerCase()}::uuid`
    : sql``;
  return sql<SqlBool>`p.id in (
    select s.id from persons s where s.team_id = ${teamId}::integer and s.email ilike ${pattern}::text
    union all select s.id from persons s where s.team_id = ${teamId}::integer and s.name ilike ${pattern}::text
    union all select d.person_id from person_distinct_ids d where d.team_id = ${teamId}::integer and d.distinct_id = ${term}::text
    ${byUuid})`;
}

export const hasPersonFilters = (filters: PersonFilters) =>
  filters.distinctId !== undefined ||
  filters.email !== undefined ||
  filters.search !== undefined ||
  filters.properties !== undefined;

function whereAll(conditions: Expression<SqlBool>[]) {
  return sql.join(conditions, sql` and `);
}

/** One page of persons with their distinct ids (attached after the page is cut, so offset rows cost nothing more). */
export async function listPersons(
  db: Db,
  teamId: number,
  filters: PersonFilters,
  page: PageRequest,
): Promise<PersonRecord[]> {
  const query = sql<PersonRecord>`
    select l.id, l.uuid, l.properties, l.created_at, ${distinctIdsOf(teamId, 'l')} as distinct_ids
    from (
      select p.id, p.uuid, p.properties, p.created_at from persons p
      where ${whereAll(conditionsOf(teamId, filters))}
      order by p.created_at desc, p.id desc
      limit ${page.limit}::integer offset ${page.offset}::bigint
    ) l
    order by l.created_at desc, l.id desc`;
  // A lookup by distinct id alone is a point read of one shape: prepared. Other lists keep a plan
  // made for their values (a search pattern, a property filter).
  if (isDistinctIdLookup(filters)) return runPrepared(db, query.compile(db));
  return (await query.execute(db)).rows;
}

const isDistinctIdLookup = (filters: PersonFilters) =>
  filters.distinctId !== undefined &&
  filters.email === undefined &&
  filters.search === undefined &&
  filters.properties === undefined;

/** The person's distinct ids in the order they were attached, for a row aliased `person`. */
const distinctIdsOf = (teamId: number, person: 'l' | 'p') =>
  sql`array(select d.distinct_id from person_distinct_ids d where d.team_id = ${teamId}::integer and d.person_id = ${sql.ref(`${person}.id`)} order by d.id)`;

const FOLD_THRESHOLD = 1000;

/** Exact count; without filters, the maintained team counter (migration 0004) instead of a scan. */
export async function countPersons(db: Db, teamId: number, filters: PersonFilters): Promise<number> {
  if (!hasPersonFilters(filters)) return countAllPersons(db, teamId);
  const result = await sql<{
    n: number;
  }>`select count(*)::bigint as n from persons p where ${whereAll(conditionsOf(teamId, filters))}`.execute(db);
  return Number(result.rows[0]?.n ?? 0);
}

/** Rows `(n, pending)`: the project's person count (counter plus pending deltas) and how many deltas wait. */
const personCountSql = (teamId: number) => sql`
  select t.person_count + coalesce(d.total, 0) as n, coalesce(d.rows, 0) as pending
  from teams t
  left join (select sum(delta) as total, count(*) as rows from person_count_deltas where team_id = ${teamId}::integer) d on true
  where t.id = ${teamId}::integer`;

export async function countAllPersons(db: Db, teamId: number): Promise<number> {
  const row = (await sql<{ n: number; pending: number }>`${personCountSql(teamId)}`.execute(db)).rows[0];
  if (!row) return 0;
  await foldWhenPending(db, teamId, row.pending);
  return Number(row.n);
}

/** Folds the project's count deltas once more than FOLD_THRESHOLD of them wait (read with the count). */
async function foldWhenPending(db: Db, teamId: number, pending: number) {
  if (Number(pending) > FOLD_THRESHOLD) await foldPersonCount(db, teamId);
}

interface CountedRow extends Omit<PersonRecord, 'id'> {
  id: number | null;
  n: number;
  pending: number;
}

/**
 * A page of all the project's persons and their count, in one (prepared) statement: the common
 * list, a round trip and a statement fewer than the count and the page apart. A page past the end
 * is one row of the count alone.
 */
export async function listAllPersonsCounted(
  db: Db,
  teamId: number,
  page: PageRequest,
): Promise<{ count: number; persons: PersonRecord[] }> {
  const query = sql<CountedRow>`
    select c.n, c.pending, l.id, l.uuid, l.properties, l.created_at, ${distinctIdsOf(teamId, 'l')} as distinct_ids
    from (${personCountSql(teamId)}) c
    left join lateral (
      select p.id, p.uuid, p.properties, p.created_at from persons p
      where p.team_id = ${teamId}::integer
      order by p.created_at desc, p.id desc
      limit ${page.limit}::integer offset ${page.offset}::bigint
    ) l on true
    order by l.created_at desc, l.id desc`;
  const rows = await runPrepared(db, query.compile(db));
  if (rows.length === 0) return { count: 0, persons: [] };
  await foldWhenPending(db, teamId, rows[0].pending);
  const persons = rows.flatMap(({ id, uuid, properties, created_at, distinct_ids }) =>
    id === null ? [] : [{ id, uuid, properties, created_at, distinct_ids }],
  );
  return { count: Number(rows[0].n), persons };
}

/**
 * Moves the pending deltas into teams.person_count in one transaction (atomic for readers). Two
 * statements, not one: Citus refuses a statement that reads a distributed table (the deltas) and
 * writes a reference table (teams). Only the deltas this transaction deleted are added, so two
 * folds at once never count a delta twice.
 */
export async function foldPersonCount(db: Db, teamId: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    const { rows } = await sql<{ total: number | null }>`
      with folded as (delete from person_count_deltas where team_id = ${teamId}::integer returning delta)
      select sum(delta) as total from folded`.execute(trx);
    const total = Number(rows[0]?.total ?? 0);
    if (total !== 0)
      await sql`update teams set person_count = person_count + ${total}::bigint where id = ${teamId}::integer`.execute(
        trx,
      );
  });
}

export interface PersonCursor {
  created_at: Date;
  id: number;
}

/**
 * Every matching person, newest first, in keyset chunks (constant memory for exports); with
 * `upTo`, only persons at or before that one in this order (a second pass sees what the first saw).
 */
export async function* iteratePersons(
  db: Db,
  teamId: number,
  filters: PersonFilters,
  upTo: PersonCursor | null = null,
  chunkSize = 1000,
): AsyncGenerator<PersonRecord[]> {
  let after: PersonCursor | null = null;
  for (;;) {
    const conditions = conditionsOf(teamId, filters);
    if (upTo)
      conditions.push(
        sql<SqlBool>`(p.created_at, p.id) <= (${upTo.created_at.toISOString()}::timestamptz, ${upTo.id}::bigint)`,
      );
    if (after)
      conditions.push(
        sql<SqlBool>`(p.created_at, p.id) < (${after.created_at.toISOString()}::timestamptz, ${after.id}::bigint)`,
      );
    const result = await sql<PersonRecord>`
      select l.id, l.uuid, l.properties, l.created_at, ${distinctIdsOf(teamId, 'l')} as distinct_ids
      from (
        select p.id, p.uuid, p.properties, p.created_at from persons p
        where ${whereAll(conditions)}
        order by p.created_at desc, p.id desc
        limit ${chunkSize}::integer
      ) l
      order by l.created_at desc, l.id desc`.execute(db);
    if (result.rows.length > 0) yield result.rows;
    if (result.rows.length < chunkSize) return;
    const last = result.rows[result.rows.length - 1];
    after = { created_at: last.created_at, id: last.id };
  }
}

/** The newest matching person's place in the list order, or null when none match. */
export async function newestPersonCursor(db: Db, teamId: number, filters: PersonFilters): Promise<PersonCursor | null> {
  const result =
    await sql<PersonCursor>`select p.created_at, p.id from persons p where ${whereAll(conditionsOf(teamId, filters))}
    order by p.created_at desc, p.id desc limit 1`.execute(db);
  return result.rows[0] ?? null;
}

/**
 * What the CSV header needs of the matching persons, computed in the database (no rows travel):
 * every leaf path of their properties (`a.b.0`, as the CSV flattening names them) and the most
 * distinct ids one of them has.
 */
export async function personColumnShape(
  db: Db,
  teamId: number,
  filters: PersonFilters,
  upTo: PersonCursor,
): Promise<{ propertyPaths: string[]; maxDistinctIds: number }> {
  const conditions = [
    ...conditionsOf(teamId, filters),
    sql<SqlBool>`(p.created_at, p.id) <= (${upTo.created_at.toISOString()}::timestamptz, ${upTo.id}::bigint)`,
  ];
  const paths = await sql<{ path: string }>`
    with recursive walk(path, value) as (
      select e.key, e.value from persons p cross join lateral jsonb_each(p.properties) e where ${whereAll(conditions)}
      union all
      select w.path || '.' || c.key, c.value from walk w cross join lateral (
        select x.key, x.value from jsonb_each(case when jsonb_typeof(w.value) = 'object' then w.value else '{}'::jsonb end) x
        union all
        select (y.ordinality - 1)::text, y.value
        from jsonb_array_elements(case when jsonb_typeof(w.value) = 'array' then w.value else '[]'::jsonb end) with ordinality y
      ) c
      where jsonb_typeof(w.value) in ('object', 'array')
    )
    select distinct path from walk where jsonb_typeof(value) not in ('object', 'array')`.execute(db);
  const most = await sql<{ n: number | null }>`
    select max(n)::integer as n from (
      select count(*) as n from persons p join person_distinct_ids d on d.team_id = p.team_id and d.person_id = p.id
      where ${whereAll(conditions)} group by p.id
    ) s`.execute(db);
  return { propertyPaths: paths.rows.map((row) => row.path), maxDistinctIds: Number(most.rows[0]?.n ?? 0) };
}

/** Persons of the project matching any of the uuids/ids or owning any of the distinct ids. */
export async function findPersonIdsForBulk(
  db: Db,
  teamId: number,
  refs: PersonRef[],
  distinctIds: string[],
): Promise<number[]> {
  const ids = refs.flatMap((ref) => ('id' in ref ? [ref.id] : []));
  const uuids = refs.flatMap((ref) => ('uuid' in ref ? [ref.uuid.toLowerCase()] : []));
  const found = new Set<number>();
  if (ids.length > 0) {
    for (const row of await db
      .selectFrom('persons')
      .select('id')
      .where('team_id', '=', teamId)
      .where('id', 'in', ids)
      .execute())
      found.add(row.id);
  }
  if (uuids.length > 0) {
    for (const row of await db
      .selectFrom('persons')
      .select('id')
      .where('team_id', '=', teamId)
      .where('uuid', 'in', uuids)
      .execute())
      found.add(row.id);
  }
  if (distinctIds.length > 0) {
    const rows = await db
      .selectFrom('person_distinct_ids')
      .select('person_id')
      .where('team_id', '=', teamId)
      .where('distinct_id', 'in', distinctIds)
      .execute();
    // A placeholder (person_id null: an id of personless events only) names no person.
    for (const row of rows) if (row.person_id !== null) found.add(row.person_id);
  }
  return [...found].sort((a, b) => a - b);
}

/** Deletes persons with their static cohort rows (their distinct ids cascade); events stay. */
export async function deletePersonRows(db: Db, teamId: number, personIds: number[]): Promise<number> {
  if (personIds.length === 0) return 0;
  // No foreign key cascades here (migration 0019: on Citus the rows lie beside the events).
  await db.deleteFrom('cohort_people').where('team_id', '=', teamId).where('person_id', 'in', personIds).execute();
  const result = await db
    .deleteFrom('persons')
    .where('team_id', '=', teamId)
    .where('id', 'in', personIds)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Locks the person's row, so a concurrent split or merge waits for the caller's transaction. */
export async function lockPerson(db: Db, teamId: number, personId: number): Promise<void> {
  await db
    .selectFrom('persons')
    .select('id')
    .where('team_id', '=', teamId)
    .where('id', '=', personId)
    .forUpdate()
    .execute();
}

export async function isPersonUuidTaken(db: Db, teamId: number, uuid: string): Promise<boolean> {
  const taken = await db
    .selectFrom('persons')
    .select('id')
    .where('team_id', '=', teamId)
    .where('uuid', '=', uuid)
    .executeTakeFirst();
  return taken !== undefined;
}

/** Moves the distinct id to a new person of its own, without properties; answers that person's id. */
export async function moveToNewPerson(
  db: Db,
  teamId: number,
  distinctId: string,
  uuid: string,
  now: Date,
): Promise<number> {
  const created = await db
    .insertInto('persons')
    .values({ team_id: teamId, uuid, properties: '{}', created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .updateTable('person_distinct_ids')
    .set((eb) => ({ person_id: created.id, version: eb('version', '+', 1) }))
    .where('team_id', '=', teamId)
    .where('distinct_id', '=', distinctId)
    .execute();
  return created.id;
}
