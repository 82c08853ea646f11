// The weekly event-deletion batch: runs every queued task to completion in bounded chunks, under
// one advisory lock so that of several servers on one PostgreSQL exactly one runs it.
import type { Db } from '../db/database.ts';
import type { Deps } from '../deps.ts';
import { personActivity, recordActivity } from '../modules/activity/activity.repository.ts';
import {
  deleteEventsChunk,
  hasEventsLeft,
  listPendingDeletions,
  recordDeletionProgress,
  releaseDeletionLock,
  tryDeletionLock,
  type PendingDeletion,
} from '../modules/deletions/deletions.repository.ts';

export interface DeletionBatchResult {
  processed: number;
  events_deleted: number;
}

export interface DeletionChunk {
  team_id: number;
  task_id: number;
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

export async function runDeletionBatch(deps: Deps, options: DeletionBatchOptions = {}): Promise<DeletionBatchResult> {
  const progress = options.onProgress ?? (() => undefined);
  const log = deps.log.child({ module: 'deletion-batch' });
  // A session-level lock lives on one connection, so the whole batch runs on that connection.
  // (On PGlite that is the only connection: other queries wait until the batch is done.)
  return deps.db.connection().execute(async (conn) => {
    if (!(await tryDeletionLock(conn))) {
      progress('another runner holds the deletion lock; nothing to do');
      log.info('deletion batch skipped: another runner holds the lock');
      return { processed: 0, events_deleted: 0 };
    }
    try {
      const result = await runLocked(conn, deps, options, progress);
      log.info(result, 'deletion batch done');
      return result;
    } finally {
      await releaseDeletionLock(conn);
    }
  });
}

async function runLocked(
  conn: Db,
  deps: Deps,
  options: DeletionBatchOptions,
  progress: (message: string) => void,
): Promise<DeletionBatchResult> {
  const chunkSize = options.chunkSize ?? DEFAULT_CHUNK_SIZE;
  const tasks = await listPendingDeletions(conn);
  progress(`${tasks.length} deletion task${tasks.length === 1 ? '' : 's'} queued`);
  const result: DeletionBatchResult = { processed: 0, events_deleted: 0 };
  for (const task of tasks) {
    let completed = false;
    while (!completed) {
      options.signal?.throwIfAborted();
      const chunk = await conn.transaction().execute(async (trx) => runChunk(trx, deps, task, chunkSize));
      completed = chunk.completed;
      result.events_deleted += chunk.deleted;
      options.onChunk?.({ team_id: task.team_id, task_id: task.id, deleted: chunk.deleted, completed });
      if (chunk.deleted > 0 || completed) {
        progress(
          `task ${task.id} (person ${task.person_uuid}): ${chunk.deleted} events deleted${completed ? `, done (${chunk.total} in all)` : ''}`,
        );
      }
    }
    result.processed += 1;
  }
  progress(`processed ${result.processed} tasks, deleted ${result.events_deleted} events`);
  return result;
}

/**
 * One transaction: delete a chunk, and when it was the last one, verify nothing is left and mark
 * the task done with its activity entry — so a task is never verified while events remain, and a
 * batch stopped between chunks leaves the task pending with its count so far.
 */
async function runChunk(trx: Db, deps: Deps, task: PendingDeletion, chunkSize: number) {
  const deleted = await deleteEventsChunk(trx, task, chunkSize);
  const done = deleted < chunkSize && !(await hasEventsLeft(trx, task));
  const now = deps.clock.now();
  const total = await recordDeletionProgress(trx, task, deleted, done ? now : null);
  if (done) {
    const project = { organization_id: task.organization_id, id: task.team_id };
    await recordActivity(
      trx,
      personActivity(project, { id: task.person_id, uuid: task.person_uuid }, 'deletion_completed', null, null),
      now,
    );
  }
  return { deleted, completed: done, total };
}
