// Privacy requests on events (a person's own: persons/person-events-deletion.service.ts): delete or scrub the
// events of a time range, list those tasks, cancel one before it runs. Each request is recorded in
// the activity log in the transaction that queues or cancels it; the deletion batch does the work.
import type { JsonObject, TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { conflict, notFound, validationError } from '../../errors.ts';
import { preparePropertyFilter } from '../cohorts/cohort-filters.ts';
import { parseUtcDate } from '../../utc-date.ts';
import type { PageRequest } from '../../wire/page.ts';
import type { Actor } from '../access/access.service.ts';
import { personActivity, recordActivity, type NewActivity } from '../activity/activity.repository.ts';
import { PERSON_KINDS, RANGE_KINDS, type DeletionKind } from './deletion-selection.ts';
import { cancelDeletionTask } from './deletions.repository.ts';
import type { DeletionStatus } from './deletions.schemas.ts';
import { findEventDeletion, listEventDeletions, queueRangeTask } from './event-deletions.repository.ts';
import type { EventDeletionBodyWire, EventDeletionWire } from './event-deletions.schemas.ts';

/** An entry about an event deletion task (scope "EventDeletion", the task id as item). */
export function eventDeletionActivity(
  project: Pick<TeamRow, 'organization_id' | 'id'>,
  task: { id: number; kind: string },
  activity: string,
  userId: number | null,
  counts: JsonObject = {},
): NewActivity {
  return {
    organizationId: project.organization_id,
    teamId: project.id,
    scope: 'EventDeletion',
    itemId: String(task.id),
    activity,
    userId,
    detail: { changes: null, name: task.kind, ...counts },
  };
}

function dateOf(raw: string, attr: string): Date {
  const parsed = parseUtcDate(raw);
  const year = parsed.getUTCFullYear();
  // Only years the database stores, so the query never fails on the value.
  if (!(year >= 1 && year <= 9999)) throw validationError(`"${raw}" is not a valid date.`, attr);
  return parsed;
}

/** Queues the deletion (or the scrub, with `scrub_properties`) of a time range's events. */
export async function requestEventDeletion(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; body: EventDeletionBodyWire },
): Promise<EventDeletionWire> {
  const { project, body } = input;
  const after = dateOf(body.after, 'after');
  const before = dateOf(body.before, 'before');
  if (before.getTime() <= after.getTime()) throw validationError('`before` must be later than `after`.', 'before');
  const hasFilter = body.properties !== undefined && !(Array.isArray(body.properties) && body.properties.length === 0);
  const resolved = hasFilter ? await preparePropertyFilter(deps.db, project.id, body.properties) : null;
  const scrub = body.scrub_properties ? [...new Set(body.scrub_properties)] : null;
  const kind = scrub ? 'scrub' : 'events';
  const now = deps.clock.now();
  const id = await deps.db.transaction().execute(async (trx) => {
    const taskId = await queueRangeTask(
      trx,
      {
        teamId: project.id,
        kind,
        after,
        before,
        event: body.event ?? null,
        properties: resolved ? ({ given: body.properties, resolved } as unknown as JsonObject) : null,
        scrubProperties: scrub,
        createdById: actor.user.id,
      },
      now,
    );
    await recordActivity(trx, eventDeletionActivity(project, { id: taskId, kind }, 'queued', actor.user.id), now);
    return taskId;
  });
  const task = await findEventDeletion(deps.db, project.id, id);
  if (!task) throw new Error('the queued task is not found');
  return task;
}

export function listEventDeletionsPage(
  deps: Deps,
  input: { project: TeamRow; status: DeletionStatus | undefined; page: PageRequest },
): Promise<{ count: number; results: EventDeletionWire[] }> {
  return listEventDeletions(deps.db, input.project.id, input.status, input.page);
}

/** Cancels a pending task of the list the path names: 404 when it is not there, 409 once it has run. */
export async function cancelTask(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: number; list: 'persons' | 'events' },
): Promise<void> {
  const { project } = input;
  const kinds: readonly DeletionKind[] = input.list === 'persons' ? PERSON_KINDS : RANGE_KINDS;
  const now = deps.clock.now();
  const result = await deps.db.transaction().execute(async (trx) => {
    const cancelled = await cancelDeletionTask(trx, { teamId: project.id, id: input.id, kinds, now });
    const task = cancelled.task;
    if (cancelled.outcome === 'cancelled' && task) {
      const entry =
        task.person_id !== null && task.person_uuid !== null
          ? personActivity(
              project,
              { id: task.person_id, uuid: task.person_uuid },
              'deletion_cancelled',
              null,
              actor.user.id,
            )
          : eventDeletionActivity(project, { id: input.id, kind: task.kind }, 'cancelled', actor.user.id);
      await recordActivity(trx, entry, now);
    }
    return cancelled.outcome;
  });
  if (result === 'not_found') throw notFound();
  if (result === 'has_run') throw conflict('This deletion has already run (or is running) and cannot be cancelled.');
}
