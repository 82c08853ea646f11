// Events for the privacy tests: written straight into the table, with the fields a test cares about.
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { JsonObject } from '../../src/db/schema.ts';
import { eventKey } from '../../src/db/person-key.ts';

export interface EventSpec {
  distinctId: string;
  personId?: number | null;
  event?: string;
  timestamp: string;
  properties?: JsonObject;
  personProperties?: JsonObject;
}

/** Inserts the events; answers their uuids in order. */
export async function insertEvents(db: Db, teamId: number, specs: EventSpec[]): Promise<string[]> {
  const uuids = specs.map(() => crypto.randomUUID());
  if (specs.length === 0) return uuids;
  await db
    .insertInto('events')
    .values(
      specs.map((spec, i) => ({
        team_id: teamId,
        uuid: uuids[i],
        event: spec.event ?? 'pageview',
        distinct_id: spec.distinctId,
        person_id: spec.personId ?? null,
        person_key: eventKey(spec.personId ?? null, spec.distinctId),
        properties: JSON.stringify(spec.properties ?? {}),
        person_properties: JSON.stringify(spec.personProperties ?? {}),
        timestamp: new Date(spec.timestamp),
      })),
    )
    .execute();
  return uuids;
}

/** `count` events of one distinct id and person, a second apart from `start`, in one statement. */
export async function insertManyEvents(
  db: Db,
  teamId: number,
  input: { distinctId: string; personId: number | null; count: number; start: string },
): Promise<void> {
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
    select ${teamId}::integer, gen_random_uuid(), 'pageview', ${input.distinctId}::text, ${input.personId}::bigint,
      ${eventKey(input.personId, input.distinctId)},
      jsonb_build_object('i', i), '{}'::jsonb, ${new Date(input.start)}::timestamptz + i * interval '1 second'
    from generate_series(1, ${input.count}::integer) as i`.execute(db);
}

export async function countTeamEvents(db: Db, teamId: number): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
