// Last step: write what the batch changed and its events — each with its person and that person's
// properties as of the event. An ordinary batch (no merge, not huge) is one statement of CTEs.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { RetryableConflict } from './load-batch.step.ts';
import { moveBatchEvents } from './move-events.ts';
import { survivorOf, type PersonBatch } from './person-batch.ts';
import { linkPersonlessEvents } from './personless-ids.ts';
import type { ResolvedEvent } from './resolve-person.step.ts';
import {
  changedExistingPersons,
  insertPersonsAndIds,
  insertWithRandomUuids,
  writePersonsStepwise,
  type MergeOutcome,
} from './write-persons.step.ts';
import { chunksOf, insertEventsSql, ROWS_PER_STATEMENT, updatePersonsSql } from './write-sql.ts';

/** Answers the attached ids that were placeholders. */
async function writeInOneStatement(db: Db, batch: PersonBatch, events: ResolvedEvent[]): Promise<string[]> {
  const teamId = batch.teamId;
  const created = batch.created.filter((person) => person.mergedInto === null);
  const changed = changedExistingPersons(batch);
  const updated = changed.length > 0 ? sql`, updated as (${updatePersonsSql(teamId, changed)})` : sql``;
  const newEvents = sql`${updated}, new_events as (${insertEventsSql(teamId, events, true)})`;
  const written = await insertPersonsAndIds(db, teamId, created, batch.newDistinctIds, newEvents);
  let attached = written.count;
  const placeholders = written.placeholders;
  const missing = created.filter((person) => person.id === null);
  if (missing.length > 0) {
    // Rare: a deterministic uuid was taken. Those persons go in under random uuids, and their
    // events, stored without a person, get it now.
    const retried = await insertWithRandomUuids(db, batch, missing);
    attached += retried.count;
    placeholders.push(...retried.placeholders);
    for (const person of missing) {
      const own = events
        .filter((resolved) => resolved.person && survivorOf(resolved.person) === person)
        .map((resolved) => resolved.event);
      await moveBatchEvents(db, teamId, own, person.id as number);
    }
  }
  // Another request gave one of these ids a person after we looked: start over and see it.
  if (attached !== batch.newDistinctIds.length) throw new RetryableConflict('a distinct id was created concurrently');
  return placeholders;
}

async function writeStepwise(
  db: Db,
  batch: PersonBatch,
  events: ResolvedEvent[],
): Promise<{ merges: MergeOutcome[]; placeholders: string[] }> {
  const outcome = await writePersonsStepwise(db, batch);
  for (const part of chunksOf(changedExistingPersons(batch))) await updatePersonsSql(batch.teamId, part).execute(db);
  for (const part of chunksOf(events)) await insertEventsSql(batch.teamId, part, false).execute(db);
  return outcome;
}

/** Writes persons, distinct ids and events; answers the merges done, for the activity log. */
export async function writeBatch(db: Db, batch: PersonBatch, events: ResolvedEvent[]): Promise<MergeOutcome[]> {
  const small = Math.max(events.length, batch.created.length, batch.newDistinctIds.length) <= ROWS_PER_STATEMENT;
  if (batch.merges.length === 0 && small) {
    // A statement of its own, after the write: see personless-ids.ts.
    await linkPersonlessEvents(db, batch.teamId, await writeInOneStatement(db, batch, events));
    return [];
  }
  const { merges, placeholders } = await writeStepwise(db, batch, events);
  await linkPersonlessEvents(db, batch.teamId, placeholders);
  return merges;
}
