// The events list: a project's events newest first, paged by keyset on (timestamp, uuid) so a page
// costs the same however deep (index `events_list`, or the event/person indexes when those filter),
// and events arriving meanwhile (newer, above the cursor) neither repeat nor push others out.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import type { JsonObject } from '../db/schema.ts';
import type { ViewContext } from './view-context.ts';
import { instantSql } from './date-range.ts';
import type { EventCursor, EventListRequest } from './events-list.params.ts';
import type { EventWire } from './events-list.schemas.ts';
import { andSql, filterSql } from './filters.ts';

interface EventRow {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: JsonObject;
  timestamp: Date;
  person_id: number | null;
  /** The timestamp to the microsecond, in UTC: the keyset needs more than a Date's milliseconds. */
  cursor_time: string;
}

type EventPersonWire = NonNullable<EventWire['person']>;

const SHOWN_PERSON_PROPERTIES = ['email', 'name', 'username'];
const EVENT_COLUMNS = sql`e.uuid, e.event, e.distinct_id, e.properties, e.timestamp, e.person_id,
  to_char(e.timestamp at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_time`;

/** Strictly after `cursor` in the newest-first order, or up to and including it. */
function keysetSql(cursor: EventCursor, inclusive: boolean): RawBuilder<unknown> {
  const at = sql`${cursor.timestamp}::timestamptz`;
  const uuid = sql`${cursor.uuid}::uuid`;
  // The bare timestamp bound lets every index on timestamp (without uuid) narrow the range too.
  return inclusive
    ? sql`(e.timestamp <= ${at} and (e.timestamp, e.uuid) <= (${at}, ${uuid}))`
    : sql`(e.timestamp <= ${at} and (e.timestamp, e.uuid) < (${at}, ${uuid}))`;
}

function conditionsOf(context: ViewContext, request: EventListRequest, upTo?: EventCursor): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [];
  if (request.event !== undefined) conditions.push(sql`e.event = ${request.event}`);
  if (request.distinctId !== undefined) conditions.push(sql`e.distinct_id = ${request.distinctId}`);
  if (request.personId !== undefined) conditions.push(sql`e.person_key = ${request.personId}::bigint`);
  if (request.filter) conditions.push(filterSql(request.filter, context.teamId));
  if (request.after) conditions.push(sql`e.timestamp > ${instantSql(request.after, context.timezone)}`);
  if (request.before) conditions.push(sql`e.timestamp < ${instantSql(request.before, context.timezone)}`);
  if (request.cursor) conditions.push(keysetSql(request.cursor, false));
  if (upTo) conditions.push(keysetSql(upTo, true));
  return andSql(conditions);
}

/** The statement of a page (or a chunk of one): what the list runs, and what a test explains. */
export function eventsPageSql(
  context: ViewContext,
  request: EventListRequest,
  limit: number,
  upTo?: EventCursor,
  offset = 0,
): RawBuilder<EventRow> {
  return sql<EventRow>`select ${EVENT_COLUMNS} from events e
    where e.team_id = ${context.teamId} and ${conditionsOf(context, request, upTo)}
    order by e.timestamp desc, e.uuid desc limit ${limit} offset ${offset}`;
}

async function selectEvents(
  context: ViewContext,
  request: EventListRequest,
  limit: number,
  upTo?: EventCursor,
  offset = 0,
): Promise<EventRow[]> {
  return (await eventsPageSql(context, request, limit, upTo, offset).execute(context.db)).rows;
}

/** The persons of the events in brief: their first distinct id and their naming properties. */
async function loadEventPersons(db: Db, teamId: number, personIds: number[]): Promise<Map<number, EventPersonWire>> {
  const persons = new Map<number, EventPersonWire>();
  if (personIds.length === 0) return persons;
  const ids = sql.join(personIds.map((id) => sql`${id}::bigint`));
  const rows = await sql<{ id: number; is_identified: boolean; properties: JsonObject }>`
    select p.id, p.is_identified, p.properties from persons p where p.team_id = ${teamId} and p.id in (${ids})`.execute(
    db,
  );
  // Each person's first distinct id: a query of its own, so each statement stays on the project's shard (Citus).
  const firstIds = await sql<{ person_id: number; distinct_id: string }>`
    select distinct on (d.person_id) d.person_id, d.distinct_id from person_distinct_ids d
    where d.team_id = ${teamId} and d.person_id in (${ids}) order by d.person_id, d.id`.execute(db);
  const firstId = new Map(firstIds.rows.map((row) => [Number(row.person_id), row.distinct_id]));
  for (const row of rows.rows) {
    const properties: JsonObject = {};
    for (const key of SHOWN_PERSON_PROPERTIES) if (key in row.properties) properties[key] = row.properties[key];
    const distinctId = firstId.get(Number(row.id));
    persons.set(Number(row.id), {
      is_identified: row.is_identified,
      distinct_ids: distinctId === undefined ? [] : [distinctId],
      properties,
    });
  }
  return persons;
}

async function serializeEvents(context: ViewContext, rows: EventRow[]): Promise<EventWire[]> {
  const personIds = [...new Set(rows.flatMap((row) => (row.person_id === null ? [] : [Number(row.person_id)])))];
  const persons = await loadEventPersons(context.db, context.teamId, personIds);
  return rows.map((row) => ({
    id: row.uuid,
    distinct_id: row.distinct_id,
    properties: row.properties,
    event: row.event,
    timestamp: row.timestamp.toISOString(),
    person: row.person_id === null ? null : (persons.get(Number(row.person_id)) ?? null),
    elements: [],
    elements_chain: '',
  }));
}

/** One page and, when more follow, the cursor of its last event. */
export async function listEvents(
  context: ViewContext,
  request: EventListRequest,
): Promise<{ results: EventWire[]; next: EventCursor | null }> {
  const rows = await selectEvents(context, request, request.limit + 1, undefined, request.offset);
  const page = rows.slice(0, request.limit);
  const last = page[page.length - 1];
  const next = rows.length > request.limit && last ? { timestamp: last.cursor_time, uuid: last.uuid } : null;
  return { results: await serializeEvents(context, page), next };
}

const CHUNK = 1000;

/**
 * The page's events in keyset chunks, as often as the caller reads them: each pass yields the
 * same events, those up to the newest match when the export began (newer arrivals stay out).
 */
export async function eventChunks(
  context: ViewContext,
  request: EventListRequest,
): Promise<() => AsyncIterable<EventWire[]>> {
  // The first event of the export (after `offset` skipped ones) bounds every pass.
  const [newest] = await selectEvents(context, request, 1, undefined, request.offset);
  const upTo = newest ? { timestamp: newest.cursor_time, uuid: newest.uuid } : undefined;
  return async function* () {
    if (!upTo) return;
    let cursor = request.cursor;
    let left = request.limit;
    while (left > 0) {
      const rows = await selectEvents(context, { ...request, cursor }, Math.min(CHUNK, left), upTo);
      if (rows.length === 0) return;
      yield await serializeEvents(context, rows);
      left -= rows.length;
      const last = rows[rows.length - 1];
      cursor = { timestamp: last.cursor_time, uuid: last.uuid };
    }
  };
}

const DAY_MS = 86_400_000;

/** The creation time a UUIDv7 carries (its first 48 bits, in ms), or null for another version. */
function uuidV7Time(uuid: string): Date | null {
  if (uuid[14] !== '7') return null;
  const time = new Date(parseInt(uuid.slice(0, 8) + uuid.slice(9, 13), 16));
  const year = time.getUTCFullYear();
  return year >= 1970 && year <= 9000 ? time : null;
}

/**
 * One event by uuid, or undefined. No index finds a uuid alone (events are keyed by distinct id);
 * a UUIDv7 (posthog-js's) tells when the event was made, so a day either side of it is read first
 * through `events_list`, and only a uuid not found there costs a read of all the project's events.
 */
export async function findEvent(context: ViewContext, uuid: string): Promise<EventWire | undefined> {
  const find = async (near: Date | null) => {
    const window =
      near === null
        ? sql``
        : sql`and e.timestamp >= ${new Date(near.getTime() - DAY_MS)} and e.timestamp <= ${new Date(near.getTime() + DAY_MS)}`;
    const result = await sql<EventRow>`select ${EVENT_COLUMNS} from events e
      where e.team_id = ${context.teamId} and e.uuid = ${uuid}::uuid ${window} limit 1`.execute(context.db);
    return result.rows;
  };
  const made = uuidV7Time(uuid);
  let rows = made ? await find(made) : [];
  if (rows.length === 0) rows = await find(null);
  const [event] = await serializeEvents(context, rows);
  return event;
}
