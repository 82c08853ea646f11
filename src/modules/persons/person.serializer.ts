// The Person object of the API: {id, name, distinct_ids, properties, created_at, uuid}.
import type { Db } from '../../db/database.ts';
import type { JsonObject } from '../../db/schema.ts';

export interface PersonRecord {
  id: number;
  uuid: string;
  properties: JsonObject;
  created_at: Date;
  distinct_ids: string[];
}

export interface PersonWire {
  id: number;
  name: string;
  distinct_ids: string[];
  properties: JsonObject;
  created_at: string;
  uuid: string;
}

const NAME_PROPERTIES = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName'];
const ANONYMOUS_ID = /^([a-z0-9]+-){4}([a-z0-9]+)$/;

/** The first non-empty naming property; else a distinct id that does not look anonymous; else the first; else the id. */
export function personName(person: Pick<PersonRecord, 'id' | 'properties' | 'distinct_ids'>): string {
  for (const key of NAME_PROPERTIES) {
    const value = person.properties[key];
    if (value !== undefined && value !== null && value !== '') return typeof value === 'string' ? value : JSON.stringify(value);
  }
  const named = person.distinct_ids.find((id) => !ANONYMOUS_ID.test(id));
  return named ?? person.distinct_ids[0] ?? String(person.id);
}

export function serializePerson(person: PersonRecord): PersonWire {
  return {
    id: person.id,
    name: personName(person),
    distinct_ids: person.distinct_ids,
    properties: person.properties,
    created_at: person.created_at.toISOString(),
    uuid: person.uuid,
  };
}

/** Distinct ids of many persons at once, each list in the order the ids were attached. */
export async function loadDistinctIds(db: Db, teamId: number, personIds: number[]): Promise<Map<number, string[]>> {
  const byPerson = new Map<number, string[]>(personIds.map((id) => [id, []]));
  if (personIds.length === 0) return byPerson;
  const rows = await db
    .selectFrom('person_distinct_ids')
    .select(['person_id', 'distinct_id'])
    .where('team_id', '=', teamId)
    .where('person_id', 'in', personIds)
    .orderBy('person_id')
    .orderBy('id')
    .execute();
  for (const row of rows) if (row.person_id !== null) byPerson.get(row.person_id)?.push(row.distinct_id);
  return byPerson;
}

/** Loads persons by id with their distinct ids, in the order of the ids given. */
export async function loadPersons(db: Db, teamId: number, personIds: number[]): Promise<PersonRecord[]> {
  if (personIds.length === 0) return [];
  const [rows, distinctIds] = await Promise.all([
    db.selectFrom('persons').select(['id', 'uuid', 'properties', 'created_at']).where('team_id', '=', teamId).where('id', 'in', personIds).execute(),
    loadDistinctIds(db, teamId, personIds),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return personIds.flatMap((id) => {
    const row = byId.get(id);
    return row ? [{ ...row, distinct_ids: distinctIds.get(id) ?? [] }] : [];
  });
}
