// The persons a batch of events touches, held in memory while the events are applied in order.
// Loaded persons are locked rows; new ones get database ids only when the batch is written.
import type { JsonObject } from '../db/schema.ts';

export interface PersonState {
  /** null until a new person is inserted. */
  id: number | null;
  uuid: string;
  properties: JsonObject;
  isIdentified: boolean;
  createdAt: Date;
  version: number;
  isNew: boolean;
  changed: boolean;
  /** Set when this person was merged into another one in this batch. */
  mergedInto: PersonState | null;
  /** Distinct ids known to belong to the person (those the batch looked up or attached). */
  distinctIds: string[];
}

export interface NewDistinctId {
  distinctId: string;
  person: PersonState;
}

export interface MergeRecord {
  source: PersonState;
  target: PersonState;
  /** The source's distinct ids known in memory at the time of the merge. */
  distinctIds: string[];
}

export interface PersonBatch {
  teamId: number;
  /** Every distinct id the batch looked up: its person, or null when it has none. */
  byDistinctId: Map<string, PersonState | null>;
  created: PersonState[];
  newDistinctIds: NewDistinctId[];
  merges: MergeRecord[];
}

export interface LoadedPerson {
  id: number;
  uuid: string;
  properties: JsonObject;
  is_identified: boolean;
  created_at: Date;
  version: number;
}

/** The batch over the persons of the looked-up distinct ids (`person_id` null: no person). */
export function openPersonBatch(
  teamId: number,
  persons: LoadedPerson[],
  distinctIds: Map<string, number | null>,
): PersonBatch {
  const byId = new Map<number, PersonState>(
    persons.map((row) => [
      row.id,
      {
        id: row.id,
        uuid: row.uuid,
        properties: row.properties,
        isIdentified: row.is_identified,
        createdAt: row.created_at,
        version: row.version,
        isNew: false,
        changed: false,
        mergedInto: null,
        distinctIds: [],
      },
    ]),
  );
  const byDistinctId = new Map<string, PersonState | null>();
  for (const [distinctId, personId] of distinctIds) {
    const person = personId === null ? null : (byId.get(personId) ?? null);
    byDistinctId.set(distinctId, person);
    person?.distinctIds.push(distinctId);
  }
  return { teamId, byDistinctId, created: [], newDistinctIds: [], merges: [] };
}

/** The person that stands for `person` now: itself, or the one it was merged into. */
export function survivorOf(person: PersonState): PersonState {
  let current = person;
  while (current.mergedInto) current = current.mergedInto;
  return current;
}

export function personOf(batch: PersonBatch, distinctId: string): PersonState | null {
  const person = batch.byDistinctId.get(distinctId);
  return person ? survivorOf(person) : null;
}

export function attachDistinctId(batch: PersonBatch, person: PersonState, distinctId: string): void {
  batch.byDistinctId.set(distinctId, person);
  batch.newDistinctIds.push({ distinctId, person });
  person.distinctIds.push(distinctId);
}

export function createPerson(
  batch: PersonBatch,
  fields: { uuid: string; properties: JsonObject; createdAt: Date; isIdentified: boolean },
  distinctIds: string[],
): PersonState {
  const person: PersonState = {
    id: null,
    version: 0,
    isNew: true,
    changed: true,
    mergedInto: null,
    distinctIds: [],
    ...fields,
  };
  batch.created.push(person);
  for (const distinctId of distinctIds) attachDistinctId(batch, person, distinctId);
  return person;
}

/**
 * `source` into `target`: target's properties win over source's, the earlier created_at is kept,
 * distinct ids move to the target, and the version passes both.
 */
export function mergeInto(batch: PersonBatch, source: PersonState, target: PersonState): void {
  batch.merges.push({ source, target, distinctIds: [...source.distinctIds] });
  target.properties = { ...source.properties, ...target.properties };
  if (source.createdAt < target.createdAt) target.createdAt = source.createdAt;
  target.isIdentified = true;
  target.version = Math.max(target.version, source.version) + 1;
  target.changed = true;
  for (const distinctId of source.distinctIds) {
    batch.byDistinctId.set(distinctId, target);
    target.distinctIds.push(distinctId);
  }
  source.mergedInto = target;
  source.distinctIds = [];
}
