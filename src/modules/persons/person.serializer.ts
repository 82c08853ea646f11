// The Person object of the API: {id, name, distinct_ids, properties, created_at, uuid}.
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
    if (value !== undefined && value !== null && value !== '')
      return typeof value === 'string' ? value : JSON.stringify(value);
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
