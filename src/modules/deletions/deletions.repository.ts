// Deletion tasks: queued by person deletes, run by the weekly batch (under its advisory lock),
// listed by deletion_status.
import { sql, type ExpressionBuilder } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';
import { personActivity, recordActivities } from '../activity/activity.repository.ts';
import type { DeletionStatus, DeletionTaskWire } from './deletions.schemas.ts';

export interface QueuedDeletion {
  teamId: number;
  personId: number;
  personUuid: string;
  distinctIds: string[];
  createdById: number | null;
}

/**
 * Queues the deletion of a person's events. Call inside the transaction that deletes the person.
 * With `organizationId`, each task also gets a `deletion_queued` activity entry on the person.
 */
export async function queueEventDeletions(
  db: Db,
  tasks: QueuedDeletion[],
  now: Date,
  organizationId?: string,
): Promise<number> {
  if (tasks.length === 0) return 0;
  await db
    .insertInto('deletion_tasks')
    .values(
      tasks.map((task) => ({
        team_id: task.teamId,
        deletion_type: 'person',
        person_id: task.personId,
        person_uuid: task.personUuid,
        distinct_ids: task.distinctIds,
        created_by_id: task.createdById,
        created_at: now,
      })),
    )
    .execute();
  if (organizationId) {
    await recordActivities(
      db,
      tasks.map((task) =>
        personActivity(
          { organization_id: organizationId, id: task.teamId },
          { id: task.personId, uuid: task.personUuid },
          'deletion_queued',
          null,
          task.createdById,
        ),
      ),
      now,
    );
  }
  return tasks.length;
}

export interface PendingDeletion {
  team_id: number;
  id: number;
  organization_id: string;
  person_id: number;
  person_uuid: string;
  distinct_ids: string[];
}

/** Every task not yet verified, oldest first, with the organization its activity entry belongs to. */
export async function listPendingDeletions(db: Db): Promise<PendingDeletion[]> {
  return db
    .selectFrom('deletion_tasks')
    .innerJoin('teams', 'teams.id', 'deletion_tasks.team_id')
    .select([
      'deletion_tasks.team_id',
      'deletion_tasks.id',
      'teams.organization_id',
      'deletion_tasks.person_id',
      'deletion_tasks.person_uuid',
      'deletion_tasks.distinct_ids',
    ])
    .where('deletion_tasks.delete_verified_at', 'is', null)
    .where('deletion_tasks.deletion_type', '=', 'person')
    .orderBy('deletion_tasks.created_at')
    .orderBy('deletion_tasks.team_id')
    .orderBy('deletion_tasks.id')
    .execute();
}

type EventsScope = ExpressionBuilder<Database, 'events'>;

/**
 * The events a task deletes, always inside its project: those attributed to the person, and those
 * sent with one of its distinct ids (PostHog deletes "by person id and by their distinct ids").
 * A distinct-id match is skipped when the event belongs to a person that exists now: after the
 * delete, capture may hand a listed distinct id to a NEW person, whose events are not the queued
 * person's. Events of persons merged into the deleted one (their rows are gone) still match.
 *
 * "Exists now" is asked of the persons those events point to, with a constant team_id and no
 * correlation: on Citus, events and persons are spread by different columns (and a correlated
 * subquery between them cannot run), while these nested lists are computed once and are short.
 */
function eventsOfTask(task: PendingDeletion) {
  return (eb: EventsScope) => {
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
    return eb.and([
      eb('events.team_id', '=', task.team_id),
      eb.or([
        eb('events.person_id', '=', task.person_id),
        eb.and([
          eb('events.distinct_id', '=', eb.fn.any(eb.val(task.distinct_ids))),
          eb.or([eb('events.person_id', 'is', null), eb('events.person_id', 'not in', living)]),
        ]),
      ]),
    ]);
  };
}

/** Deletes at most `limit` of the task's events; one bounded statement, so no giant lock. */
export async function deleteEventsChunk(db: Db, task: PendingDeletion, limit: number): Promise<number> {
  const doomed = db
    .selectFrom('events')
    .select(['events.distinct_id', 'events.id'])
    .where(eventsOfTask(task))
    .limit(limit);
  const result = await db
    .deleteFrom('events')
    .where('events.team_id', '=', task.team_id)
    // By the key (team_id, distinct_id, id): on Citus the distinct id names the shard.
    .where((eb) => eb(eb.refTuple('events.distinct_id', 'events.id'), 'in', doomed.$asTuple('distinct_id', 'id')))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function hasEventsLeft(db: Db, task: PendingDeletion): Promise<boolean> {
  const row = await db.selectFrom('events').select('events.id').where(eventsOfTask(task)).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Adds a chunk's count to the task; `verifiedAt` marks it done. Returns the task's total. */
export async function recordDeletionProgress(
  db: Db,
  task: PendingDeletion,
  deleted: number,
  verifiedAt: Date | null,
): Promise<number> {
  const row = await db
    .updateTable('deletion_tasks')
    .set((eb) => ({
      events_deleted: eb('events_deleted', '+', deleted),
      ...(verifiedAt ? { delete_verified_at: verifiedAt } : {}),
    }))
    .where('team_id', '=', task.team_id)
    .where('id', '=', task.id)
    .returning('events_deleted')
    .executeTakeFirst();
  return row?.events_deleted ?? 0;
}

/** One constant key: pg_try_advisory_lock is per database, so each database has its own runner. */
export const DELETION_LOCK_KEY = 7_241_006;

/** Takes the batch's session-level lock on this connection, unless another session holds it. */
export async function tryDeletionLock(conn: Db): Promise<boolean> {
  const locked = await sql<{
    locked: boolean;
  }>`select pg_try_advisory_lock(${DELETION_LOCK_KEY}::bigint) as locked`.execute(conn);
  return locked.rows[0]?.locked ?? false;
}

export async function releaseDeletionLock(conn: Db): Promise<void> {
  await sql`select pg_advisory_unlock(${DELETION_LOCK_KEY}::bigint)`.execute(conn);
}

export interface DeletionStatusFilter {
  status?: DeletionStatus;
  personUuid?: string;
}

export async function listDeletionTasks(
  db: Db,
  teamId: number,
  filter: DeletionStatusFilter,
  page: PageRequest,
): Promise<{ count: number; results: DeletionTaskWire[] }> {
  let query = db.selectFrom('deletion_tasks').where('deletion_tasks.team_id', '=', teamId);
  if (filter.status === 'pending') query = query.where('deletion_tasks.delete_verified_at', 'is', null);
  if (filter.status === 'completed') query = query.where('deletion_tasks.delete_verified_at', 'is not', null);
  if (filter.personUuid) query = query.where('deletion_tasks.person_uuid', '=', filter.personUuid.toLowerCase());

  const [counted, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    query
      .leftJoin('users', 'users.id', 'deletion_tasks.created_by_id')
      .select([
        'deletion_tasks.id',
        'deletion_tasks.person_id',
        'deletion_tasks.person_uuid',
        'deletion_tasks.distinct_ids',
        'deletion_tasks.created_at',
        'deletion_tasks.delete_verified_at',
        'deletion_tasks.events_deleted',
        'users.first_name',
        'users.email',
      ])
      .orderBy('deletion_tasks.created_at', 'desc')
      .orderBy('deletion_tasks.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
  ]);

  return {
    count: Number(counted.count),
    results: rows.map((row) => ({
      id: row.id,
      person_id: row.person_id,
      person_uuid: row.person_uuid,
      distinct_ids: row.distinct_ids,
      status: row.delete_verified_at ? 'completed' : 'pending',
      created_at: row.created_at.toISOString(),
      delete_verified_at: row.delete_verified_at ? row.delete_verified_at.toISOString() : null,
      events_deleted: row.events_deleted,
      created_by: row.email === null ? null : { first_name: row.first_name ?? '', email: row.email },
    })),
  };
}
