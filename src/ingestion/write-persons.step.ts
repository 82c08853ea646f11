// Step after the events are applied: write the batch's persons. New persons and new distinct ids
// go in one statement; merges (rare) each take a few; updates of existing persons are written with
// the events (write-events.step.ts).
import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { RetryableConflict } from './load-persons.step.ts';
import { survivorOf, type PersonBatch, type PersonState } from './person-batch.ts';

export interface MergeOutcome {
  survivor: PersonState;
  /** The distinct ids that moved to the survivor, in the order they were attached. */
  distinctIds: string[];
}

// Rows per statement: well under PostgreSQL's 65535 bound parameters.
export const ROWS_PER_STATEMENT = 2000;

export function chunksOf<T>(items: T[], size = ROWS_PER_STATEMENT): T[][] {
  const result: T[][] = [];
  for (let i = 0; i < items.length; i += size) result.push(items.slice(i, i + size));
  return result;
}

function idOf(person: PersonState): number {
  const survivor = survivorOf(person);
  if (survivor.id === null) throw new Error('person written before it was inserted');
  return survivor.id;
}

const personValues = (teamId: number, person: PersonState) =>
  sql`(${teamId}::integer, ${person.uuid}::uuid, ${JSON.stringify(person.properties)}::jsonb, ${person.isIdentified}::boolean, ${person.version}::bigint, ${person.createdAt}::timestamptz)`;

/**
 * Inserts new persons and every new distinct id (of new or existing persons) in one statement,
 * the ids in the order they were attached. Answers how many distinct ids were inserted.
 */
async function insertPersonsAndIds(db: Db, batch: PersonBatch, persons: PersonState[], entries: PersonBatch['newDistinctIds']): Promise<number> {
  const teamId = batch.teamId;
  const idValues = entries.map((entry, order) => {
    const survivor = survivorOf(entry.person);
    return sql`(${entry.distinctId}::text, ${survivor.id}::bigint, ${survivor.uuid}::uuid, ${order}::integer)`;
  });
  const insertPersons =
    persons.length > 0
      ? sql`insert into persons (team_id, uuid, properties, is_identified, version, created_at)
          values ${sql.join(persons.map((person) => personValues(teamId, person)))}
          on conflict (team_id, uuid) do nothing
          returning id, uuid`
      : sql`select null::bigint as id, null::uuid as uuid where false`;
  const insertIds =
    idValues.length > 0
      ? sql`insert into person_distinct_ids (team_id, distinct_id, person_id)
          select ${teamId}::integer, v.distinct_id, coalesce(v.person_id, n.id)
          from (values ${sql.join(idValues)}) as v (distinct_id, person_id, person_uuid, ord)
          left join new_persons n on n.uuid = v.person_uuid
          where coalesce(v.person_id, n.id) is not null
          order by v.ord
          on conflict (team_id, distinct_id) do nothing
          returning distinct_id`
      : sql`select null::text as distinct_id where false`;
  const { rows } = await sql<{ persons: Array<{ id: number; uuid: string }> | null; attached: number }>`
    with new_persons as (${insertPersons}), new_ids as (${insertIds})
    select (select json_agg(json_build_object('id', id, 'uuid', uuid)) from new_persons) as persons,
      (select count(*) from new_ids)::integer as attached`.execute(db);
  const byUuid = new Map(persons.map((person) => [person.uuid, person]));
  for (const row of rows[0].persons ?? []) {
    const person = byUuid.get(row.uuid);
    if (person) person.id = Number(row.id);
  }
  return rows[0].attached;
}

/** Persons whose deterministic uuid is taken (split off or re-created elsewhere) get a random one. */
async function insertWithRandomUuids(db: Db, batch: PersonBatch, persons: PersonState[]): Promise<number> {
  for (const person of persons) person.uuid = crypto.randomUUID();
  const entries = batch.newDistinctIds.filter((entry) => persons.includes(survivorOf(entry.person)));
  return insertPersonsAndIds(db, batch, persons, entries);
}

async function applyMerge(db: Db, teamId: number, source: PersonState, target: PersonState): Promise<string[]> {
  if (source.isNew) return [];
  const sourceId = source.id as number;
  const targetId = idOf(target);
  // Moved ids are re-attached (new row ids), so the survivor lists them in the order they joined it.
  const moved = (
    await db.deleteFrom('person_distinct_ids').where('team_id', '=', teamId).where('person_id', '=', sourceId).returning(['id', 'distinct_id', 'version']).execute()
  ).sort((a, b) => a.id - b.id);
  if (moved.length > 0) {
    await db
      .insertInto('person_distinct_ids')
      .values(moved.map((row) => ({ team_id: teamId, distinct_id: row.distinct_id, person_id: targetId, version: row.version + 1 })))
      .execute();
  }
  // Past events follow the person they now belong to (PostHog's person overrides).
  await db.updateTable('events').set({ person_id: targetId }).where('team_id', '=', teamId).where('person_id', '=', sourceId).execute();
  await db
    .insertInto('cohort_people')
    .columns(['team_id', 'cohort_id', 'person_id'])
    .expression((eb) =>
      eb
        .selectFrom('cohort_people')
        .select(['team_id', 'cohort_id', sql<number>`${targetId}::bigint`.as('person_id')])
        .where('team_id', '=', teamId)
        .where('person_id', '=', sourceId),
    )
    .onConflict((oc) => oc.doNothing())
    .execute();
  await db.deleteFrom('persons').where('team_id', '=', teamId).where('id', '=', sourceId).execute();
  return moved.map((row) => row.distinct_id);
}

/** Writes new persons, distinct ids and merges; answers the merges done, for the activity log. */
export async function writeNewPersonsAndMerges(db: Db, batch: PersonBatch): Promise<MergeOutcome[]> {
  const created = batch.created.filter((person) => person.mergedInto === null);
  if (created.length > 0 || batch.newDistinctIds.length > 0) {
    if (created.length > ROWS_PER_STATEMENT || batch.newDistinctIds.length > ROWS_PER_STATEMENT) {
      // Large batches: persons first in chunks, then their ids in chunks.
      let attached = 0;
      for (const part of chunksOf(created)) attached += await insertPersonsAndIds(db, batch, part, []);
      const ready = batch.newDistinctIds.filter((entry) => survivorOf(entry.person).id !== null);
      for (const part of chunksOf(ready)) attached += await insertPersonsAndIds(db, batch, [], part);
      const missing = created.filter((person) => person.id === null);
      if (missing.length > 0) attached += await insertWithRandomUuids(db, batch, missing);
      if (attached !== batch.newDistinctIds.length) throw new RetryableConflict('a distinct id was created concurrently');
    } else {
      let attached = await insertPersonsAndIds(db, batch, created, batch.newDistinctIds);
      const missing = created.filter((person) => person.id === null);
      if (missing.length > 0) attached += await insertWithRandomUuids(db, batch, missing);
      // Another request gave one of these ids a person after we looked: start over and see it.
      if (attached !== batch.newDistinctIds.length) throw new RetryableConflict('a distinct id was created concurrently');
    }
  }
  const outcomes: MergeOutcome[] = [];
  for (const merge of batch.merges) {
    const movedFromDatabase = await applyMerge(db, batch.teamId, merge.source, merge.target);
    outcomes.push({ survivor: survivorOf(merge.target), distinctIds: [...new Set([...movedFromDatabase, ...merge.distinctIds])] });
  }
  return outcomes;
}

/** Existing persons the batch changed (merge survivors included), to update with the events. */
export function changedExistingPersons(batch: PersonBatch): PersonState[] {
  const changed = new Set<PersonState>();
  for (const person of batch.byDistinctId.values()) {
    if (person && !person.isNew && person.changed && person.mergedInto === null) changed.add(person);
  }
  for (const merge of batch.merges) {
    const survivor = survivorOf(merge.target);
    if (!survivor.isNew) changed.add(survivor);
  }
  return [...changed];
}
