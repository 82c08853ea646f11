// Persons, distinct ids and events written straight to the database, for the persons API tests.
import crypto from 'node:crypto';
import type { Db } from '../../src/db/database.ts';

export interface SeededPerson {
  id: number;
  uuid: string;
}

export async function seedPerson(
  db: Db,
  teamId: number,
  options: { properties?: Record<string, unknown>; distinctIds?: string[]; createdAt?: Date | string; uuid?: string } = {},
): Promise<SeededPerson> {
  const row = await db
    .insertInto('persons')
    .values({
      team_id: teamId,
      uuid: options.uuid ?? crypto.randomUUID(),
      properties: JSON.stringify(options.properties ?? {}),
      created_at: options.createdAt ?? new Date(),
    })
    .returning(['id', 'uuid'])
    .executeTakeFirstOrThrow();
  for (const distinctId of options.distinctIds ?? [`d-${crypto.randomBytes(4).toString('hex')}`]) {
    await db.insertInto('person_distinct_ids').values({ team_id: teamId, distinct_id: distinctId, person_id: row.id }).execute();
  }
  return row;
}

export async function seedEvent(
  db: Db,
  teamId: number,
  person: SeededPerson | null,
  options: { event?: string; distinctId?: string; timestamp: Date | string; personProperties?: Record<string, unknown> },
): Promise<void> {
  await db
    .insertInto('events')
    .values({
      team_id: teamId,
      uuid: crypto.randomUUID(),
      event: options.event ?? 'pageview',
      distinct_id: options.distinctId ?? 'someone',
      person_id: person?.id ?? null,
      properties: '{}',
      person_properties: JSON.stringify(options.personProperties ?? {}),
      timestamp: options.timestamp,
    })
    .execute();
}

export const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));
