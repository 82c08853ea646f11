// Deletion tasks: queued by person deletes, run by the weekly batch (under its advisory lock),
// listed by deletion_status. The other kinds' queueing and listing: event-deletions.repository.ts.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { PageRequest } from '../../wire/page.ts';
import { personActivity, recordActivities } from '../activity/activity.repository.ts';
import { PERSON_KINDS, type DeletionKind, type PendingDeletion } from './deletion-selection.ts';
import type { DeletionStatus, DeletionTaskWire } from './deletions.schemas.ts';
import { ADVISORY_LOCKS } from '../../db/advisory-locks.ts';

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

/** Every task neither done nor cancelled, oldest first, with the organization its activity entries belong to. */
export async function listPendingDeletions(db: Db): Promise<PendingDeletion[]> {
  const rows = await db
    .selectFrom('deletion_tasks')
    .innerJoin('teams', 'teams.id', 'deletion_tasks.team_id')
    .select([
      'deletion_tasks.team_id',
      'deletion_tasks.id',
      'teams.organization_id',
      'deletion_tasks.deletion_type',
      'deletion_tasks.person_id',
      'deletion_tasks.person_uuid',
      'deletion_tasks.distinct_ids',
      'deletion_tasks.events_until',
      'deletion_tasks.range_after',
      'deletion_tasks.range_before',
      'deletion_tasks.event',
      'deletion_tasks.properties',
      'deletion_tasks.scrub_properties',
    ])
    .where('deletion_tasks.delete_verified_at', 'is', null)
    .where('deletion_tasks.cancelled_at', 'is', null)
    .orderBy('deletion_tasks.created_at')
    .orderBy('deletion_tasks.team_id')
    .orderBy('deletion_tasks.id')
    .execute();
  return rows.map((row) => ({ ...row, properties: row.properties as PendingDeletion['properties'] }));
}

/**
 * Locks the task's row for the chunk's transaction and answers whether it is still to run: a cancel
 * (which updates the row) either committed before, and the task is skipped, or waits for this chunk
 * and then finds the task started.
 */
export async function isStillPending(db: Db, task: PendingDeletion): Promise<boolean> {
  const row = await db
    .selectFrom('deletion_tasks')
    .select(['cancelled_at', 'delete_verified_at'])
    .where('team_id', '=', task.team_id)
    .where('id', '=', task.id)
    .forUpdate()
    .executeTakeFirst();
  return row !== undefined && row.cancelled_at === null && row.delete_verified_at === null;
}

/** Adds a chunk's count to the task; `verifiedAt` marks it done. Returns the task's total. */
export async function recordDeletionProgress(
  db: Db,
  task: PendingDeletion,
  count: number,
  now: Date,
  verified: boolean,
): Promise<number> {
  const column = task.deletion_type === 'scrub' ? 'events_scrubbed' : 'events_deleted';
  const row = await db
    .updateTable('deletion_tasks')
    .set((eb) => ({
      [column]: eb(column, '+', count),
      started_at: eb.fn.coalesce('started_at', eb.val(now)),
      ...(verified ? { delete_verified_at: now } : {}),
    }))
    .where('team_id', '=', task.team_id)
    .where('id', '=', task.id)
    .returning(['events_deleted', 'events_scrubbed'])
    .executeTakeFirst();
  return row ? Number(row[column]) : 0;
}

/** One constant key: pg_try_advisory_lock is per database, so each database has its own runner. */
export const DELETION_LOCK_KEY = ADVISORY_LOCKS.deletionBatch;

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

/** The tasks of some kinds in a project with a status, for a count and a page. */
export function taskListQuery(db: Db, teamId: number, kinds: readonly DeletionKind[], status?: DeletionStatus) {
  let query = db
    .selectFrom('deletion_tasks')
    .where('deletion_tasks.team_id', '=', teamId)
    .where('deletion_tasks.deletion_type', 'in', kinds);
  if (status === 'pending') {
    query = query
      .where('deletion_tasks.delete_verified_at', 'is', null)
      .where('deletion_tasks.cancelled_at', 'is', null);
  }
  if (status === 'completed') query = query.where('deletion_tasks.delete_verified_at', 'is not', null);
  if (status === 'cancelled') query = query.where('deletion_tasks.cancelled_at', 'is not', null);
  return query;
}

export function statusOf(row: { delete_verified_at: Date | null; cancelled_at: Date | null }): DeletionStatus {
  if (row.cancelled_at) return 'cancelled';
  return row.delete_verified_at ? 'completed' : 'pending';
}

export const isoOrNull = (value: Date | null) => (value ? value.toISOString() : null);

export async function listDeletionTasks(
  db: Db,
  teamId: number,
  filter: DeletionStatusFilter,
  page: PageRequest,
): Promise<{ count: number; results: DeletionTaskWire[] }> {
  let query = taskListQuery(db, teamId, PERSON_KINDS, filter.status);
  if (filter.personUuid) query = query.where('deletion_tasks.person_uuid', '=', filter.personUuid.toLowerCase());

  const [counted, rows] = await Promise.all([
    query.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    query
      .leftJoin('users', 'users.id', 'deletion_tasks.created_by_id')
      .select([
        'deletion_tasks.id',
        'deletion_tasks.deletion_type',
        'deletion_tasks.person_id',
        'deletion_tasks.person_uuid',
        'deletion_tasks.distinct_ids',
        'deletion_tasks.created_at',
        'deletion_tasks.delete_verified_at',
        'deletion_tasks.cancelled_at',
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
      kind: row.deletion_type as DeletionTaskWire['kind'],
      // Both person kinds always name their person.
      person_id: row.person_id as number,
      person_uuid: row.person_uuid as string,
      distinct_ids: row.distinct_ids,
      status: statusOf(row),
      created_at: row.created_at.toISOString(),
      delete_verified_at: isoOrNull(row.delete_verified_at),
      cancelled_at: isoOrNull(row.cancelled_at),
      events_deleted: Number(row.events_deleted),
      created_by: createdByOf(row),
    })),
  };
}

export const createdByOf = (row: { first_name: string | null; email: string | null }) =>
  row.email === null ? null : { first_name: row.first_name ?? '', email: row.email };

export type CancelOutcome = 'cancelled' | 'already_cancelled' | 'has_run' | 'not_found';

/**
 * Cancels a task that has not started. The row lock orders it with the batch's chunks (each locks
 * the row first): a task is either cancelled before any chunk or has started and stays.
 */
export async function cancelDeletionTask(
  db: Db,
  input: { teamId: number; id: number; kinds: readonly DeletionKind[]; now: Date },
): Promise<{ outcome: CancelOutcome; task?: { person_id: number | null; person_uuid: string | null; kind: string } }> {
  const row = await db
    .selectFrom('deletion_tasks')
    .select(['deletion_type', 'person_id', 'person_uuid', 'started_at', 'delete_verified_at', 'cancelled_at'])
    .where('team_id', '=', input.teamId)
    .where('id', '=', input.id)
    .where('deletion_type', 'in', input.kinds)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return { outcome: 'not_found' };
  const task = { person_id: row.person_id, person_uuid: row.person_uuid, kind: row.deletion_type };
  if (row.cancelled_at) return { outcome: 'already_cancelled', task };
  if (row.started_at || row.delete_verified_at) return { outcome: 'has_run', task };
  await db
    .updateTable('deletion_tasks')
    .set({ cancelled_at: input.now })
    .where('team_id', '=', input.teamId)
    .where('id', '=', input.id)
    .execute();
  return { outcome: 'cancelled', task };
}
