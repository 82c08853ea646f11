// Writing persons one kind of statement at a time: the path for merges and very large batches,
// and the fallback when a new person's deterministic uuid is already taken.
import crypto from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.ts';
import { runPrepared } from '../db/prepared.ts';
import { RetryableConflict } from './load-batch.step.ts';
import { moveEventsOfPerson } from './move-events.ts';
import { survivorOf, type NewDistinctId, type PersonBatch, type PersonState } from './person-batch.ts';
import { attachedColumnsSql, chunksOf, insertDistinctIdsSql, insertPersonsSql, type Attached } from './write-sql.ts';

export interface MergeOutcome {
  survivor: PersonState;
  /** The distinct ids that moved to the survivor, in the order they were attached. */
  distinctIds: string[];
}

function idOf(person: PersonState): number {
  const survivor = survivorOf(person);
  if (survivor.id === null) throw new Error('person written before it was inserted');
  return survivor.id;
}

/**
 * New persons (their ids set on them) and distinct ids in one statement, with `moreCtes` (`, name
 * as (…)` each) written in it too; answers which ids went in.
 */
export async function insertPersonsAndIds(
  db: Db,
  teamId: number,
  persons: PersonState[],
  entries: NewDistinctId[],
  moreCtes: RawBuilder<unknown> = sql``,
): Promise<Attached> {
  // A named statement (prepared.ts): its text depends only on which parts the batch has, and its
  // parse and plan were a tenth of the database's time for an ordinary batch.
  const rows = await runPrepared(
    db,
    sql<{
      persons: Array<{ id: number; uuid: string }> | null;
      attached: number;
      placeholders: string[];
    }>`
    with new_persons as (${insertPersonsSql(teamId, persons)}), new_ids as (${insertDistinctIdsSql(teamId, entries)})${moreCtes}
    select (select json_agg(json_build_object('id', id, 'uuid', uuid)) from new_persons) as persons, ${attachedColumnsSql}`.compile(
      db,
    ),
  );
  const byUuid = new Map(persons.map((person) => [person.uuid, person]));
  for (const row of rows[0].persons ?? []) {
    const person = byUuid.get(row.uuid);
    if (person) person.id = Number(row.id);
  }
  return { count: rows[0].attached, placeholders: rows[0].placeholders };
}

/**
 * New persons whose deterministic uuid was taken (a person split off or re-created elsewhere) get
 * a random one; answers which of their distinct ids went in.
 */
export async function insertWithRandomUuids(db: Db, batch: PersonBatch, persons: PersonState[]): Promise<Attached> {
  for (const person of persons) person.uuid = crypto.randomUUID();
  const entries = batch.newDistinctIds.filter((entry) => persons.includes(survivorOf(entry.person)));
  return insertPersonsAndIds(db, batch.teamId, persons, entries);
}

async function applyMerge(db: Db, teamId: number, source: PersonState, target: PersonState): Promise<string[]> {
  if (source.isNew) return [];
  const sourceId = source.id as number;
  const targetId = idOf(target);
  // Moved ids are re-attached (new row ids), so the survivor lists them in the order they joined it.
  const moved = (
    await db
      .deleteFrom('person_distinct_ids')
      .where('team_id', '=', teamId)
      .where('person_id', '=', sourceId)
      .returning(['id', 'distinct_id', 'version'])
      .execute()
  ).sort((a, b) => a.id - b.id);
  if (moved.length > 0) {
    await db
      .insertInto('person_distinct_ids')
      .values(
        moved.map((row) => ({
          team_id: teamId,
          distinct_id: row.distinct_id,
          person_id: targetId,
          version: row.version + 1,
        })),
      )
      .execute();
  }
  // Past events follow the person they now belong to (PostHog's person overrides).
  await moveEventsOfPerson(db, teamId, sourceId, targetId);
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
  await db.deleteFrom('cohort_people').where('team_id', '=', teamId).where('person_id', '=', sourceId).execute();
  await db.deleteFrom('persons').where('team_id', '=', teamId).where('id', '=', sourceId).execute();
  return moved.map((row) => row.distinct_id);
}

export interface StepwiseOutcome {
  merges: MergeOutcome[];
  /** Attached ids that were placeholders (personless-ids.ts). */
  placeholders: string[];
}

/** New persons and distinct ids in chunks, then the merges in order. */
export async function writePersonsStepwise(db: Db, batch: PersonBatch): Promise<StepwiseOutcome> {
  const created = batch.created.filter((person) => person.mergedInto === null);
  const attached: Attached = { count: 0, placeholders: [] };
  const add = (part: Attached) => {
    attached.count += part.count;
    attached.placeholders.push(...part.placeholders);
  };
  for (const part of chunksOf(created)) add(await insertPersonsAndIds(db, batch.teamId, part, []));
  const missing = created.filter((person) => person.id === null);
  if (missing.length > 0) add(await insertWithRandomUuids(db, batch, missing));
  const pending = batch.newDistinctIds.filter((entry) => !missing.includes(survivorOf(entry.person)));
  for (const part of chunksOf(pending)) add(await insertPersonsAndIds(db, batch.teamId, [], part));
  // Another request gave one of these ids a person after we looked: start over and see it.
  if (attached.count !== batch.newDistinctIds.length)
    throw new RetryableConflict('a distinct id was created concurrently');
  const merges: MergeOutcome[] = [];
  for (const merge of batch.merges) {
    const movedFromDatabase = await applyMerge(db, batch.teamId, merge.source, merge.target);
    merges.push({
      survivor: survivorOf(merge.target),
      distinctIds: [...new Set([...movedFromDatabase, ...merge.distinctIds])],
    });
  }
  return { merges, placeholders: attached.placeholders };
}

/** Existing persons the batch changed (merge survivors included). */
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
