// Person changes made through the API: deletes (single and bulk) and splits, each with its
// activity entries, in one transaction.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import { validationError } from '../../errors.ts';
import { personUuid } from '../../ingestion/uuid.ts';
import { recordActivities, recordActivity, type ActivityChange, type NewActivity } from '../activity/activity.repository.ts';
import { queueEventDeletions } from '../deletions/deletions.repository.ts';
import { loadPersons, type PersonRecord } from './person.serializer.ts';
import { deletePersonRows } from './persons.repository.ts';

/** Runs `work` in `db` when it is already a transaction, else in a new one. */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

export interface PersonActor {
  userId: number;
}

export function personActivity(
  project: TeamRow,
  person: Pick<PersonRecord, 'id' | 'uuid'>,
  activity: string,
  changes: ActivityChange[] | null,
  actor: PersonActor | null,
): NewActivity {
  return {
    organizationId: project.organization_id,
    teamId: project.id,
    scope: 'Person',
    itemId: String(person.id),
    activity,
    userId: actor?.userId ?? null,
    detail: { changes, name: person.uuid },
  };
}

export interface DeleteOutcome {
  found: number;
  deleted: number;
  queued: number;
}

/** Deletes the persons (distinct ids go with them, events stay), one `deleted` entry each; optionally queues their events' deletion. */
export async function deletePersons(db: Db, project: TeamRow, personIds: number[], deleteEvents: boolean, actor: PersonActor, now: Date): Promise<DeleteOutcome> {
  return inTransaction(db, async (trx) => {
    const persons = await loadPersons(trx, project.id, personIds);
    const deleted = await deletePersonRows(trx, project.id, persons.map((person) => person.id));
    await recordActivities(trx, persons.map((person) => personActivity(project, person, 'deleted', null, actor)), now);
    const queued = deleteEvents
      ? await queueEventDeletions(
          trx,
          persons.map((person) => ({ teamId: project.id, personId: person.id, personUuid: person.uuid, distinctIds: person.distinct_ids, createdById: actor.userId })),
          now,
        )
      : 0;
    return { found: persons.length, deleted, queued };
  });
}

/** A fresh uuid for a split-off person: the platform's deterministic one unless already taken. */
async function splitUuid(db: Db, teamId: number, distinctId: string): Promise<string> {
  const uuid = personUuid(teamId, distinctId);
  const taken = await db.selectFrom('persons').select('id').where('team_id', '=', teamId).where('uuid', '=', uuid).executeTakeFirst();
  return taken ? crypto.randomUUID() : uuid;
}

/**
 * Every distinct id but the kept one (the given, else the first) moves to a new person of its own
 * with empty properties; the original keeps its properties.
 */
export async function splitPerson(db: Db, project: TeamRow, personId: number, mainDistinctId: string | undefined, actor: PersonActor, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Lock the person so a concurrent split or merge waits for this one.
    await trx.selectFrom('persons').select('id').where('team_id', '=', project.id).where('id', '=', personId).forUpdate().execute();
    const [person] = await loadPersons(trx, project.id, [personId]);
    if (!person) throw validationError('Person not found.');
    if (mainDistinctId !== undefined && !person.distinct_ids.includes(mainDistinctId)) {
      throw validationError('main_distinct_id is not a distinct id of this person.', 'main_distinct_id');
    }
    const kept = mainDistinctId ?? person.distinct_ids[0];
    for (const distinctId of person.distinct_ids) {
      if (distinctId === kept) continue;
      const created = await trx
        .insertInto('persons')
        .values({ team_id: project.id, uuid: await splitUuid(trx, project.id, distinctId), properties: '{}', created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .updateTable('person_distinct_ids')
        .set((eb) => ({ person_id: created.id, version: eb('version', '+', 1) }))
        .where('team_id', '=', project.id)
        .where('distinct_id', '=', distinctId)
        .execute();
    }
    const change: ActivityChange = { type: 'Person', action: 'split', field: null, before: null, after: { distinct_ids: person.distinct_ids } };
    await recordActivity(trx, personActivity(project, person, 'split_person', [change], actor), now);
  });
}
