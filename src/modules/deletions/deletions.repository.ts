// Deletion tasks: queued by person deletes, run by the weekly batch.
import type { Db } from '../../db/database.ts';

export interface QueuedDeletion {
  teamId: number;
  personId: number;
  personUuid: string;
  distinctIds: string[];
  createdById: number | null;
}

/** Queues the deletion of a person's events. Call inside the transaction that deletes the person. */
export async function queueEventDeletions(db: Db, tasks: QueuedDeletion[], now: Date): Promise<number> {
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
  return tasks.length;
}
