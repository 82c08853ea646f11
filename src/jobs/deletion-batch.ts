// The weekly event-deletion batch: queues each project's retention task, then runs every pending
// task (of every kind) to completion in bounded chunks, under one advisory lock so that of several
// servers on one PostgreSQL exactly one runs it.
import type { Db } from '../db/database.ts';
import type { Deps } from '../deps.ts';
import { personActivity, recordActivities, recordActivity } from '../modules/activity/activity.repository.ts';
import {
  applyTaskChunk,
  DELETION_KINDS,
  hasEventsLeft,
  type ChunkCursor,
  type DeletionKind,
  type PendingDeletion,
} from '../modules/deletions/deletion-selection.ts';
import {
  isStillPending,
  listPendingDeletions,
  recordDeletionProgress,
  releaseDeletionLock,
  tryDeletionLock,
} from '../modules/deletions/deletions.repository.ts';
import { listProjectsDueForRetention, queueRangeTask } from '../modules/deletions/event-deletions.repository.ts';
import { eventDeletionActivity } from '../modules/deletions/event-deletions.service.ts';

export interface KindCounts {
  processed: number;
  events_deleted: number;
  events_scrubbed: number;
}

export interface DeletionBatchResult {
  processed: number;
  events_deleted: number;
  events_scrubbed: number;
  /** The same counts for each kind of task. */
  kinds: Record<DeletionKind, KindCounts>;
}

export interface DeletionChunk {
  team_id: number;
  task_id: number;
  kind: string;
  deleted: number;
  completed: boolean;
}

export interface DeletionBatchOptions {
  /** Called as work progresses (the CLI prints it on stderr). */
  onProgress?: (message: string) => void;
  /** Called after each committed chunk (metrics, tests). A throw stops the batch like a crash would. */
  onChunk?: (chunk: DeletionChunk) => void;
  /** Stops the batch between chunks (server shutdown); the next run resumes where it stopped. */
  signal?: AbortSignal;
  /** Events deleted per transaction. */
  chunkSize?: number;
}

export const DEFAULT_CHUNK_SIZE = 10_000;
const DAY_MS = 86_400_000;

export function emptyBatchResult(): DeletionBatchResult {
  const kinds = Object.fromEntries(
    DELETION_KINDS.map((kind) => [kind, { processed: 0, events_deleted: 0, events_scrubbed: 0 }]),
  ) as Record<DeletionKind, KindCounts>;
  return { processed: 0, events_deleted: 0, events_scrubbed: 0, kinds };
}

export async function runDeletionBatch(deps: Deps, options: DeletionBatchOptions = {}): Promise<DeletionBatchResult> {
  const progress = options.onProgress ?? (() => undefined);
  const log = deps.log.child({ module: 'deletion-batch' });
  // A session-level lock lives on one connection, so the whole batch runs on that connection.
  // (On PGlite that is the only connection: other queries wait until the batch is done.)
  return deps.db.connection().execute(async (conn) => {
    if (!(await tryDeletionLock(conn))) {
      progress('another runner holds the deletion lock; nothing to do');
      log.info('deletion batch skipped: another runner holds the lock');
      return emptyBatchResult();
    }
    try {
      const result = await runLocked(conn, deps, options, progress);
      log.info({ processed: result.processed, events_deleted: result.events_deleted }, 'deletion batch done');
      return result;
    } finally {
      await releaseDeletionLock(conn);
    }
  });
}

/**
 * A retention task for each project with a retention period and none pending: the events older
 * than the period as of now. One left pending by a stopped run is resumed with its own cut-off.
 */
async function queueRetentionTasks(conn: Db, deps: Deps, pending: PendingDeletion[]): Promise<number> {
  const busy = new Set(pending.filter((task) => task.deletion_type === 'retention').map((task) => task.team_id));
  const due = await listProjectsDueForRetention(conn, busy);
  const now = deps.clock.now();
  for (const project of due) {
    await conn.transaction().execute(async (trx) => {
      const before = new Date(now.getTime() - project.data_retention_days * DAY_MS);
      const id = await queueRangeTask(
        trx,
        {
          teamId: project.id,
          kind: 'retention',
          after: null,
          before,
          event: null,
          properties: null,
          scrubProperties: null,
          createdById: null,
        },
        now,
      );
      await recordActivities(trx, [eventDeletionActivity(project, { id, kind: 'retention' }, 'queued', null)], now);
    });
  }
  return due.length;
}

async function runLocked(
  conn: Db,
  deps: Deps,
  options: DeletionBatchOptions,
  progress: (message: string) => void,
): Promise<DeletionBatchResult> {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  let tasks = await listPendingDeletions(conn);
  const retention = await queueRetentionTasks(conn, deps, tasks);
  if (retention > 0) {
    progress(`${retention} retention task${retention === 1 ? '' : 's'} queued`);
    tasks = await listPendingDeletions(conn);
  }
  progress(`${tasks.length} deletion task${tasks.length === 1 ? '' : 's'} queued`);
  const result = emptyBatchResult();
  for (const task of tasks) {
    const kind = (DELETION_KINDS as readonly string[]).includes(task.deletion_type)
      ? (task.deletion_type as DeletionKind)
      : 'person';
    const counts = result.kinds[kind];
    const field = kind === 'scrub' ? 'events_scrubbed' : 'events_deleted';
    let completed = false;
    let ran = false;
    let cursor: ChunkCursor | null = null;
    while (!completed) {
      options.signal?.throwIfAborted();
      const from: ChunkCursor | null = cursor;
      const chunk: ChunkOutcome = await conn
        .transaction()
        .execute(async (trx) => runChunk(trx, deps, task, chunkSize, from));
      if (chunk.skipped) break;
      cursor = chunk.cursor;
      ran = true;
      completed = chunk.completed;
      result[field] += chunk.count;
      counts[field] += chunk.count;
      options.onChunk?.({ team_id: task.team_id, task_id: task.id, kind, deleted: chunk.count, completed });
      if (chunk.count > 0 || completed) {
        const verb = kind === 'scrub' ? 'scrubbed' : 'deleted';
        progress(
          `task ${task.id} (${describeTask(task)}): ${chunk.count} events ${verb}${completed ? `, done (${chunk.total} in all)` : ''}`,
        );
      }
    }
    if (!ran) {
      progress(`task ${task.id} (${describeTask(task)}): cancelled, skipped`);
      continue;
    }
    result.processed += 1;
    counts.processed += 1;
  }
  progress(
    `processed ${result.processed} tasks, deleted ${result.events_deleted} events, scrubbed ${result.events_scrubbed}`,
  );
  return result;
}

function describeTask(task: PendingDeletion): string {
  if (task.person_uuid) return `${task.deletion_type} ${task.person_uuid}`;
  return `${task.deletion_type} of project ${task.team_id}`;
}

/**
 * One transaction: lock the task (a cancel committed before wins; one after finds it started),
 * apply a chunk, and when it was the last one, verify nothing is left and mark the task done with
 * its activity entry — so a task is never verified while events remain, and a batch stopped
 * between chunks leaves the task pending with its count so far.
 */
interface ChunkOutcome {
  skipped: boolean;
  count: number;
  completed: boolean;
  total: number;
  cursor: ChunkCursor | null;
}

async function runChunk(
  trx: Db,
  deps: Deps,
  task: PendingDeletion,
  chunkSize: number,
  from: ChunkCursor | null,
): Promise<ChunkOutcome> {
  if (!(await isStillPending(trx, task))) return { skipped: true, count: 0, completed: false, total: 0, cursor: null };
  const { count, cursor } = await applyTaskChunk(trx, task, chunkSize, from);
  // The walk reached the end: done unless rows appeared behind it (a late event), then walk again.
  const walkedToEnd = count < chunkSize;
  const done = walkedToEnd && !(await hasEventsLeft(trx, task));
  const now = deps.clock.now();
  const total = await recordDeletionProgress(trx, task, count, now, done);
  if (done) {
    const project = { organization_id: task.organization_id, id: task.team_id };
    const entry =
      task.person_id !== null && task.person_uuid !== null
        ? personActivity(
            project,
            { id: task.person_id, uuid: task.person_uuid },
            task.deletion_type === 'person' ? 'deletion_completed' : 'events_deletion_completed',
            null,
            null,
          )
        : eventDeletionActivity(project, { id: task.id, kind: task.deletion_type }, 'completed', null, {
            [task.deletion_type === 'scrub' ? 'events_scrubbed' : 'events_deleted']: total,
          });
    await recordActivity(trx, entry, now);
  }
  return { skipped: false, count, completed: done, total, cursor: walkedToEnd ? null : cursor };
}
