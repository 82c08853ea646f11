// The deletion tasks that are not a deleted person's: a person's events (the person stays), a time
// range deleted or scrubbed, a project's retention. Queued here, run by the deletion batch.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { JsonObject } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';
import { RANGE_KINDS } from './deletion-selection.ts';
import { createdByOf, isoOrNull, statusOf, taskListQuery } from './deletions.repository.ts';
import type { DeletionStatus } from './deletions.schemas.ts';
import type { EventDeletionWire } from './event-deletions.schemas.ts';

const taskColumns = [
  'deletion_tasks.id',
  'deletion_tasks.deletion_type',
  'deletion_tasks.range_after',
  'deletion_tasks.range_before',
  'deletion_tasks.event',
  'deletion_tasks.properties',
  'deletion_tasks.scrub_properties',
  'deletion_tasks.created_at',
  'deletion_tasks.started_at',
  'deletion_tasks.delete_verified_at',
  'deletion_tasks.cancelled_at',
  'deletion_tasks.events_deleted',
  'deletion_tasks.events_scrubbed',
  'users.first_name',
  'users.email',
] as const;

/**
 * Queues the deletion of a person's events, the person staying. `events_until` is the database's
 * own time: events carry the database's `created_at`, so "stored up to the request" compares like with like.
 */
export async function queuePersonEventsDeletion(
  db: Db,
  input: { teamId: number; personId: number; personUuid: string; distinctIds: string[]; createdById: number | null },
  now: Date,
): Promise<number> {
  const row = await db
    .insertInto('deletion_tasks')
    .values({
      team_id: input.teamId,
      deletion_type: 'person_events',
      person_id: input.personId,
      person_uuid: input.personUuid,
      distinct_ids: input.distinctIds,
      events_until: sql<Date>`now()`,
      created_by_id: input.createdById,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface RangeTaskInput {
  teamId: number;
  kind: 'events' | 'scrub' | 'retention';
  after: Date | null;
  before: Date;
  event: string | null;
  properties: JsonObject | null;
  scrubProperties: string[] | null;
  createdById: number | null;
}

export async function queueRangeTask(db: Db, input: RangeTaskInput, now: Date): Promise<number> {
  const row = await db
    .insertInto('deletion_tasks')
    .values({
      team_id: input.teamId,
      deletion_type: input.kind,
      range_after: input.after,
      range_before: input.before,
      event: input.event,
      properties: input.properties === null ? null : JSON.stringify(input.properties),
      scrub_properties: input.scrubProperties,
      created_by_id: input.createdById,
      created_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The projects with a retention period, but those in `busy` (a retention task of theirs is pending). */
export async function listProjectsDueForRetention(
  db: Db,
  busy: ReadonlySet<number>,
): Promise<{ id: number; organization_id: string; data_retention_days: number }[]> {
  const teams = await db
    .selectFrom('teams')
    .select(['id', 'organization_id', 'data_retention_days'])
    .where('data_retention_days', 'is not', null)
    .orderBy('id')
    .execute();
  return teams
    .filter((team) => !busy.has(team.id))
    .map((team) => ({ ...team, data_retention_days: team.data_retention_days as number }));
}

export async function listEventDeletions(
  db: Db,
  teamId: number,
  status: DeletionStatus | undefined,
  page: PageRequest,
): Promise<{ count: number; results: EventDeletionWire[] }> {
  const query = taskListQuery(db, teamId, RANGE_KINDS, status);
  const [counted, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    query
      .leftJoin('users', 'users.id', 'deletion_tasks.created_by_id')
      .select(taskColumns)
      .orderBy('deletion_tasks.created_at', 'desc')
      .orderBy('deletion_tasks.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);
  return { count: Number(counted.count), results: rows.map(serializeEventDeletion) };
}

export async function findEventDeletion(db: Db, teamId: number, id: number): Promise<EventDeletionWire | undefined> {
  const row = await taskListQuery(db, teamId, RANGE_KINDS)
    .where('deletion_tasks.id', '=', id)
    .leftJoin('users', 'users.id', 'deletion_tasks.created_by_id')
    .select(taskColumns)
    .executeTakeFirst();
  return row && serializeEventDeletion(row);
}

type TaskRow = {
  id: number;
  deletion_type: string;
  range_after: Date | null;
  range_before: Date | null;
  event: string | null;
  properties: JsonObject | null;
  scrub_properties: string[] | null;
  created_at: Date;
  started_at: Date | null;
  delete_verified_at: Date | null;
  cancelled_at: Date | null;
  events_deleted: number;
  events_scrubbed: number;
  first_name: string | null;
  email: string | null;
};

function serializeEventDeletion(row: TaskRow): EventDeletionWire {
  return {
    id: row.id,
    kind: row.deletion_type as EventDeletionWire['kind'],
    after: isoOrNull(row.range_after),
    before: isoOrNull(row.range_before) ?? '',
    event: row.event,
    properties: (row.properties?.given as EventDeletionWire['properties'] | undefined) ?? null,
    scrub_properties: row.scrub_properties,
    status: statusOf(row),
    created_at: row.created_at.toISOString(),
    started_at: isoOrNull(row.started_at),
    completed_at: isoOrNull(row.delete_verified_at),
    cancelled_at: isoOrNull(row.cancelled_at),
    events_deleted: Number(row.events_deleted),
    events_scrubbed: Number(row.events_scrubbed),
    created_by: createdByOf(row),
  };
}
