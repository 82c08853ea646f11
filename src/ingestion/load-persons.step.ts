// Step of the pipeline before any event is applied: find and lock, in one stable order, every
// person the batch's distinct ids point to (and those distinct-id rows), so concurrent batches
// neither deadlock nor lose updates.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { LoadedPerson } from './person-batch.ts';

/** Thrown when another transaction changed what this one read; the whole batch is retried. */
export class RetryableConflict extends Error {
  readonly code = '40001';
}

interface LockedRow extends LoadedPerson {
  distinct_id: string;
}

/**
 * Locks the persons of `distinctIds` with their distinct-id rows, in person id order, and answers
 * each id's person (null: none). A row moved or deleted by a transaction we waited for drops out
 * of the result, so its id reads as new; creating it then conflicts and the batch is retried.
 */
export async function loadPersons(
  db: Db,
  teamId: number,
  distinctIds: string[],
): Promise<{ persons: LoadedPerson[]; distinctIds: Map<string, number | null> }> {
  const result = new Map<string, number | null>(distinctIds.map((id) => [id, null]));
  if (distinctIds.length === 0) return { persons: [], distinctIds: result };
  const { rows } = await sql<LockedRow>`
    select d.distinct_id, p.id, p.uuid, p.properties, p.is_identified, p.created_at, p.version
    from person_distinct_ids d
    join persons p on p.team_id = d.team_id and p.id = d.person_id
    where d.team_id = ${teamId} and d.distinct_id = any(${distinctIds}::text[])
    order by p.id, d.distinct_id
    for update of d, p`.execute(db);
  const persons = new Map<number, LoadedPerson>();
  for (const row of rows) {
    result.set(row.distinct_id, row.id);
    if (!persons.has(row.id)) {
      const { distinct_id: _ignored, ...person } = row;
      persons.set(row.id, person);
    }
  }
  return { persons: [...persons.values()], distinctIds: result };
}
