// Last step: store the events with their person and the person's properties as of each event.
// A (team, uuid) already stored is skipped, so an SDK retrying a delivered batch changes nothing.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { NewEvent } from '../db/schema.ts';
import { survivorOf } from './person-batch.ts';
import type { ResolvedEvent } from './resolve-person.step.ts';

const CHUNK = 1000;

/** The uuids among `uuids` that the team already has events for. */
export async function findStoredUuids(db: Db, teamId: number, uuids: string[]): Promise<Set<string>> {
  if (uuids.length === 0) return new Set();
  const rows = await db
    .selectFrom('events')
    .select('uuid')
    .where('team_id', '=', teamId)
    .where('uuid', '=', sql<string>`any(${uuids}::uuid[])`)
    .execute();
  return new Set(rows.map((row) => row.uuid));
}

export async function writeEvents(db: Db, teamId: number, events: ResolvedEvent[]): Promise<void> {
  const rows: NewEvent[] = events.map(({ event, person, personProperties }) => ({
    team_id: teamId,
    uuid: event.uuid,
    event: event.event,
    distinct_id: event.distinctId,
    person_id: person ? survivorOf(person).id : null,
    properties: JSON.stringify(event.properties),
    person_properties: JSON.stringify(personProperties),
    timestamp: event.timestamp,
  }));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('events')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.columns(['team_id', 'uuid']).doNothing())
      .execute();
  }
}
