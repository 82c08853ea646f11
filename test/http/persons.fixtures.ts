// Events written straight to the database, for the persons API tests.
import crypto from 'node:crypto';
import type { Db } from '../../src/db/database.ts';
import { eventKey } from '../../src/db/person-key.ts';

export async function seedEvent(
  db: Db,
  teamId: number,
  person: { id: number } | null,
  options: {
    event?: string;
    distinctId?: string;
    timestamp: Date | string;
    personProperties?: Record<string, unknown>;
  },
): Promise<void> {
  await db
    .insertInto('events')
    .values({
      team_id: teamId,
      uuid: crypto.randomUUID(),
      event: options.event ?? 'pageview',
      distinct_id: options.distinctId ?? 'someone',
      person_id: person?.id ?? null,
      person_key: eventKey(person?.id ?? null, options.distinctId ?? 'someone'),
      properties: '{}',
      person_properties: JSON.stringify(options.personProperties ?? {}),
      timestamp: options.timestamp,
    })
    .execute();
}

export const enc = (value: unknown) => encodeURIComponent(JSON.stringify(value));
