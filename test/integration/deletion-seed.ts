// Rows for the deletion tests: events written straight into the table, queued deletions.
import crypto from 'node:crypto';
import type { Db } from '../../src/db/database.ts';
import { queueEventDeletions } from '../../src/modules/deletions/deletions.repository.ts';
import type { TestPerson } from '../helpers/factories.ts';
import { eventKey } from '../../src/db/person-key.ts';

export async function seedEvents(
  db: Db,
  teamId: number,
  distinctId: string,
  personId: number | null,
  count: number,
): Promise<void> {
  if (count === 0) return;
  await db
    .insertInto('events')
    .values(
      Array.from({ length: count }, (_, i) => ({
        team_id: teamId,
        uuid: crypto.randomUUID(),
        event: 'pageview',
        distinct_id: distinctId,
        person_id: personId,
        person_key: eventKey(personId, distinctId),
        properties: JSON.stringify({ i }),
        person_properties: JSON.stringify({}),
        timestamp: new Date(Date.UTC(2026, 0, 1, 0, i)),
      })),
    )
    .execute();
}

/** What DELETE ?delete_events=true does: queue the task, then remove the person and its ids. */
export async function deletePersonQueuingEvents(
  db: Db,
  person: TestPerson,
  options: { createdById?: number | null; now?: Date; organizationId?: string } = {},
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await queueEventDeletions(
      trx,
      [
        {
          teamId: person.teamId,
          personId: person.id,
          personUuid: person.uuid,
          distinctIds: person.distinctIds,
          createdById: options.createdById ?? null,
        },
      ],
      options.now ?? new Date(),
      options.organizationId,
    );
    await trx.deleteFrom('persons').where('team_id', '=', person.teamId).where('id', '=', person.id).execute();
  });
}

export async function countEvents(
  db: Db,
  teamId: number,
  where: { personId?: number | null; distinctId?: string } = {},
): Promise<number> {
  let query = db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', teamId);
  if (where.personId !== undefined)
    query =
      where.personId === null ? query.where('person_id', 'is', null) : query.where('person_id', '=', where.personId);
  if (where.distinctId !== undefined) query = query.where('distinct_id', '=', where.distinctId);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function findTask(db: Db, teamId: number, personUuid: string) {
  return db
    .selectFrom('deletion_tasks')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('person_uuid', '=', personUuid)
    .executeTakeFirstOrThrow();
}

/** A batch's totals without its per-kind counts. */
export function totalsOf(result: { processed: number; events_deleted: number }) {
  return { processed: result.processed, events_deleted: result.events_deleted };
}
