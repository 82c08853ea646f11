// A privacy request on one person: delete every event of their distinct ids stored so far while
// the person, their properties and distinct ids stay. Queued for the deletion batch.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { Actor } from '../access/access.service.ts';
import { personActivity, recordActivity } from '../activity/activity.repository.ts';
import { listDeletionTasks } from '../deletions/deletions.repository.ts';
import type { DeletionTaskWire } from '../deletions/deletions.schemas.ts';
import { queuePersonEventsDeletion } from '../deletions/event-deletions.repository.ts';
import { lockPerson } from './persons.repository.ts';
import { requirePerson } from './persons.service.ts';

/** Queues the deletion of every event of the person's distinct ids stored so far; the person stays. */
export async function requestPersonEventsDeletion(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string },
): Promise<DeletionTaskWire> {
  const { project } = input;
  const found = await requirePerson(deps.db, project, input.id);
  const now = deps.clock.now();
  const taskId = await deps.db.transaction().execute(async (trx) => {
    // Under the person's lock, so a merge or split running now does not change the ids under us.
    await lockPerson(trx, project.id, found.id);
    const person = await requirePerson(trx, project, String(found.id));
    const id = await queuePersonEventsDeletion(
      trx,
      {
        teamId: project.id,
        personId: person.id,
        personUuid: person.uuid,
        distinctIds: person.distinct_ids,
        createdById: actor.user.id,
      },
      now,
    );
    await recordActivity(trx, personActivity(project, person, 'events_deletion_queued', null, actor.user.id), now);
    return id;
  });
  const page = await listDeletionTasks(deps.db, project.id, { personUuid: found.uuid }, { limit: 100, offset: 0 });
  const task = page.results.find((row) => row.id === taskId);
  if (!task) throw new Error('the queued task is not found');
  return task;
}
