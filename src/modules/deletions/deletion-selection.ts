// Which events a deletion task selects, and the bounded statements that delete or scrub them.
// Every selection is inside the task's project; every statement touches at most `limit` events, so
// a chunk's row locks are few and short and capture (which only inserts) never waits on them long.
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { compilePropertyFilterForWhere, type FilterNode } from '../../filters/property-filter.ts';

export const DELETION_KINDS = ['person', 'person_events', 'events', 'scrub', 'retention'] as const;
export type DeletionKind = (typeof DELETION_KINDS)[number];
/** The kinds persons/deletion_status/ lists; event_deletions/ lists the others. */
export const PERSON_KINDS: readonly DeletionKind[] = ['person', 'person_events'];
export const RANGE_KINDS: readonly DeletionKind[] = ['events', 'scrub', 'retention'];

export interface PendingDeletion {
  team_id: number;
  id: number;
  organization_id: string;
  deletion_type: string;
  person_id: number | null;
  person_uuid: string | null;
  distinct_ids: string[];
  events_until: Date | null;
  range_after: Date | null;
  range_before: Date | null;
  event: string | null;
  /** `{given, resolved}`: the filter as asked and with its cohorts resolved (what runs). */
  properties: { resolved?: FilterNode } | null;
  scrub_properties: string[] | null;
}

type EventsScope = ExpressionBuilder<Database, 'events'>;

/**
 * A deleted person's events: those attributed to the person, and those sent with one of its
 * distinct ids (PostHog deletes "by person id and by their distinct ids"). A distinct-id match is
 * skipped when the event belongs to a person that exists now: after the delete, capture may hand a
 * listed distinct id to a NEW person, whose events are not the queued person's. Events of persons
 * merged into the deleted one (their rows are gone) still match.
 *
 * "Exists now" is asked of the persons those events point to, with a constant team_id and no
 * correlation: on Citus, events and persons are spread by different columns (and a correlated
 * subquery between them cannot run), while these nested lists are computed once and are short.
 */
function deletedPersonEvents(eb: EventsScope, task: PendingDeletion): Expression<SqlBool> {
  const pointedTo = eb
    .selectFrom('events as listed')
    .select('listed.person_id')
    .where('listed.team_id', '=', task.team_id)
    .where('listed.distinct_id', '=', eb.fn.any(eb.val(task.distinct_ids)))
    .where('listed.person_id', 'is not', null);
  const living = eb
    .selectFrom('persons')
    .select('persons.id')
    .where('persons.team_id', '=', task.team_id)
    .where('persons.id', 'in', pointedTo);
  return eb.or([
    eb('events.person_key', '=', task.person_id ?? 0),
    eb.and([
      eb('events.distinct_id', '=', eb.fn.any(eb.val(task.distinct_ids))),
      eb.or([eb('events.person_id', 'is', null), eb('events.person_id', 'not in', living)]),
    ]),
  ]);
}

/** A range task's events: [after, before) by event timestamp, one event name, property filters. */
function rangeEvents(eb: EventsScope, task: PendingDeletion): Expression<SqlBool> {
  const conditions: Expression<SqlBool>[] = [eb('events.timestamp', '<', task.range_before ?? new Date(0))];
  if (task.range_after) conditions.push(eb('events.timestamp', '>=', task.range_after));
  if (task.event !== null) conditions.push(eb('events.event', '=', task.event));
  const filter = task.properties?.resolved;
  if (filter) {
    // Person filters test the snapshot stored on the event, as the analytical views do.
    conditions.push(
      compilePropertyFilterForWhere(filter, {
        teamId: task.team_id,
        properties: sql.ref('events.person_properties'),
        eventProperties: sql.ref('events.properties'),
        personId: sql.ref('events.person_id'),
      }),
    );
  }
  if (task.deletion_type === 'scrub') {
    // Only events still holding a key: a scrubbed event no longer matches, so a resumed run counts none twice.
    const keys = task.scrub_properties ?? [];
    conditions.push(
      eb.or([
        sql<SqlBool>`${sql.ref('events.properties')} ?| ${keys}::text[]`,
        sql<SqlBool>`${sql.ref('events.person_properties')} ?| ${keys}::text[]`,
      ]),
    );
  }
  return eb.and(conditions);
}

function eventsOfTask(task: PendingDeletion) {
  return (eb: EventsScope) => {
    let selection: Expression<SqlBool>;
    if (task.deletion_type === 'person') selection = deletedPersonEvents(eb, task);
    else if (task.deletion_type === 'person_events') {
      // The person's distinct ids at the request, and only what was stored up to it.
      selection = eb.and([
        eb('events.distinct_id', '=', eb.fn.any(eb.val(task.distinct_ids))),
        eb('events.created_at', '<=', task.events_until ?? new Date(0)),
      ]);
    } else selection = rangeEvents(eb, task);
    return eb.and([eb('events.team_id', '=', task.team_id), selection]);
  };
}

function chunkOf(db: Db, task: PendingDeletion, limit: number) {
  return db.selectFrom('events').select(['events.person_key', 'events.id']).where(eventsOfTask(task)).limit(limit);
}

/** Where a range task's walk through the events key stands: the last key of the previous chunk. */
export interface ChunkCursor {
  person_key: number;
  id: number;
}

const walksByKey = (task: PendingDeletion) => (RANGE_KINDS as readonly string[]).includes(task.deletion_type);

/**
 * The keys of the task's next chunk. A range task walks the events key (team_id, person_key, id)
 * from `cursor`, so each chunk reads on from where the last one stopped instead of passing again
 * over the rows before the range and those it deleted; a person's task reads its events by
 * person and distinct id, where no walk is needed.
 */
async function nextChunkKeys(db: Db, task: PendingDeletion, limit: number, cursor: ChunkCursor | null) {
  if (!walksByKey(task)) return chunkOf(db, task, limit).execute();
  let query = chunkOf(db, task, limit).orderBy('events.person_key').orderBy('events.id');
  if (cursor) {
    query = query.where((eb) =>
      eb(eb.refTuple('events.person_key', 'events.id'), '>', eb.tuple(cursor.person_key, cursor.id)),
    );
  }
  return query.execute();
}

/**
 * Deletes (or, for a scrub task, scrubs) at most `limit` of the task's events; answers how many and
 * the cursor to continue from (the last key, in the database's own order).
 */
export async function applyTaskChunk(
  db: Db,
  task: PendingDeletion,
  limit: number,
  cursor: ChunkCursor | null = null,
): Promise<{ count: number; cursor: ChunkCursor | null }> {
  const keys = await nextChunkKeys(db, task, limit, cursor);
  if (keys.length === 0) return { count: 0, cursor };
  const last = keys[keys.length - 1];
  const next = walksByKey(task) ? { person_key: Number(last.person_key), id: Number(last.id) } : null;
  // By the key (team_id, person_key, id): on Citus the person keys name the shards. An id is
  // unique in the table, so the two lists select exactly the rows read above.
  const personKeys = [...new Set(keys.map((key) => Number(key.person_key)))];
  const ids = keys.map((key) => Number(key.id));
  if (task.deletion_type === 'scrub') {
    const names = task.scrub_properties ?? [];
    const result = await db
      .updateTable('events')
      .set({
        properties: sql`${sql.ref('events.properties')} - ${names}::text[]`,
        person_properties: sql`${sql.ref('events.person_properties')} - ${names}::text[]`,
      })
      .where('events.team_id', '=', task.team_id)
      .where((eb) => eb('events.person_key', '=', eb.fn.any(eb.val(personKeys))))
      .where((eb) => eb('events.id', '=', eb.fn.any(eb.val(ids))))
      .executeTakeFirst();
    return { count: Number(result.numUpdatedRows), cursor: next };
  }
  const result = await db
    .deleteFrom('events')
    .where('events.team_id', '=', task.team_id)
    .where((eb) => eb('events.person_key', '=', eb.fn.any(eb.val(personKeys))))
    .where((eb) => eb('events.id', '=', eb.fn.any(eb.val(ids))))
    .executeTakeFirst();
  return { count: Number(result.numDeletedRows), cursor: next };
}

export async function hasEventsLeft(db: Db, task: PendingDeletion): Promise<boolean> {
  return (await chunkOf(db, task, 1).executeTakeFirst()) !== undefined;
}
