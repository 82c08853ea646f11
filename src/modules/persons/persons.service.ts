// The persons of a project: the filtered list with its count, the CSV export of every match, one
// person, and the changes made through the API (deletes, single and bulk, and splits), each with
// its activity entries in the same transaction.
import crypto from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { notFound, validationError } from '../../errors.ts';
import { personUuid } from '../../ingestion/uuid.ts';
import { streamCsv } from '../../wire/csv.ts';
import type { PageRequest } from '../../wire/page.ts';
import type { Actor } from '../access/access.service.ts';
import {
  personActivity,
  recordActivities,
  recordActivity,
  type ActivityChange,
} from '../activity/activity.repository.ts';
import { preparePropertyFilter } from '../cohorts/cohort-filters.ts';
import { queueEventDeletions } from '../deletions/deletions.repository.ts';
import { parsePersonRef, personRefOf } from './person-ref.ts';
import { serializePerson, type PersonRecord, type PersonWire } from './person.serializer.ts';
import {
  countPersons,
  deletePersonRows,
  findPerson,
  findPersonIdsForBulk,
  hasPersonFilters,
  isPersonUuidTaken,
  iteratePersons,
  listAllPersonsCounted,
  listPersons,
  loadPersons,
  lockPerson,
  moveToNewPerson,
  newestPersonCursor,
  personColumnShape,
  type PersonFilters,
  type PersonRef,
} from './persons.repository.ts';
import { Person, type BulkDeleteResultWire, type PersonListFilters } from './persons.schemas.ts';

async function filtersOf(deps: Deps, teamId: number, query: PersonListFilters): Promise<PersonFilters> {
  const search = query.search?.trim();
  const properties = query.properties?.trim();
  return {
    distinctId: query.distinct_id,
    email: query.email,
    search: search === '' ? undefined : search,
    properties:
      properties === undefined || properties === ''
        ? undefined
        : await preparePropertyFilter(deps.db, teamId, query.properties),
  };
}

export async function listPersonsPage(
  deps: Deps,
  input: { project: TeamRow; filters: PersonListFilters; page: PageRequest },
): Promise<{ count: number; results: PersonWire[] }> {
  const teamId = input.project.id;
  const filters = await filtersOf(deps, teamId, input.filters);
  if (filters.distinctId !== undefined) {
    // A distinct id names one person at most: its match is the whole list, and the count its length.
    const matches = await listPersons(deps.db, teamId, filters, { limit: 1, offset: 0 });
    return { count: matches.length, results: input.page.offset === 0 ? matches.map(serializePerson) : [] };
  }
  if (!hasPersonFilters(filters)) {
    const { count, persons } = await listAllPersonsCounted(deps.db, teamId, input.page);
    return { count, results: persons.map(serializePerson) };
  }
  const [count, persons] = await Promise.all([
    countPersons(deps.db, teamId, filters),
    listPersons(deps.db, teamId, filters, input.page),
  ]);
  return { count, results: persons.map(serializePerson) };
}

/** The CSV columns of Person objects: each plain field, an indexed one per distinct id, a dotted one per property path. */
function personCsvColumns(shape: { propertyPaths: string[]; maxDistinctIds: number }): string[] {
  return Object.entries(Person.properties).flatMap(([field, schema]) => {
    if (schema.type === 'array') return Array.from({ length: shape.maxDistinctIds }, (_, index) => `${field}.${index}`);
    if (schema.type === 'object') return shape.propertyPaths.map((path) => `${field}.${path}`);
    return [field];
  });
}

/**
 * Every match as CSV, streamed in keyset chunks after a header computed in the database, so memory
 * stays constant. Persons created once the export started stay out (the lines stop at the newest
 * one seen first). The header is known before this answers, so a failure there is a clean error.
 */
export async function exportPersonsCsv(
  deps: Deps,
  input: { project: TeamRow; filters: PersonListFilters },
): Promise<Readable> {
  const teamId = input.project.id;
  const filters = await filtersOf(deps, teamId, input.filters);
  const newest = await newestPersonCursor(deps.db, teamId, filters);
  const header = newest ? personCsvColumns(await personColumnShape(deps.db, teamId, filters, newest)) : [];
  const source = async function* () {
    for await (const persons of iteratePersons(deps.db, teamId, filters, newest)) yield persons.map(serializePerson);
  };
  return streamCsv(source, async () => header);
}

/** The person named by `id` (an id or uuid) in the project, or 404. */
export async function requirePerson(db: Db, project: TeamRow, id: string): Promise<PersonRecord> {
  const person = await findPerson(db, project.id, parsePersonRef(id));
  if (!person) throw notFound();
  return person;
}

export async function getPerson(deps: Deps, input: { project: TeamRow; id: string }): Promise<PersonWire> {
  return serializePerson(await requirePerson(deps.db, input.project, input.id));
}

export interface DeleteOutcome {
  found: number;
  deleted: number;
  queued: number;
}

/** Deletes the persons (distinct ids go with them, events stay), one `deleted` entry each; optionally queues their events' deletion. */
async function deletePersons(
  deps: Deps,
  actor: Actor,
  project: TeamRow,
  personIds: number[],
  deleteEvents: boolean,
): Promise<DeleteOutcome> {
  const now = deps.clock.now();
  const persons = await loadPersons(deps.db, project.id, personIds);
  const deleted = await deletePersonRows(
    deps.db,
    project.id,
    persons.map((person) => person.id),
  );
  await recordActivities(
    deps.db,
    persons.map((person) => personActivity(project, person, 'deleted', null, actor.user.id)),
    now,
  );
  const tasks = persons.map((person) => ({
    teamId: project.id,
    personId: person.id,
    personUuid: person.uuid,
    distinctIds: person.distinct_ids,
    createdById: actor.user.id,
  }));
  const queued = deleteEvents ? await queueEventDeletions(deps.db, tasks, now) : 0;
  return { found: persons.length, deleted, queued };
}

export async function deletePerson(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string; deleteEvents: boolean },
): Promise<void> {
  const person = await requirePerson(deps.db, input.project, input.id);
  const outcome = await deps.db
    .transaction()
    .execute((trx) => deletePersons({ ...deps, db: trx }, actor, input.project, [person.id], input.deleteEvents));
  if (outcome.deleted === 0) throw notFound();
}

function bulkRefs(ids: (string | number)[]): PersonRef[] {
  return ids.map((raw) => {
    const ref = typeof raw === 'number' ? { id: Number.isSafeInteger(raw) ? raw : -1 } : personRefOf(raw);
    if (!ref) throw validationError(`"${String(raw)}" is not a valid person id.`, 'ids');
    return ref;
  });
}

/** The persons named by id or uuid, or owning one of the distinct ids, deleted: one transaction, so the answer counts what was really removed. */
export async function bulkDeletePersons(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; ids: (string | number)[]; distinctIds: string[]; deleteEvents: boolean },
): Promise<BulkDeleteResultWire> {
  const outcome = await deps.db.transaction().execute(async (trx) => {
    const personIds = await findPersonIdsForBulk(trx, input.project.id, bulkRefs(input.ids), input.distinctIds);
    return deletePersons({ ...deps, db: trx }, actor, input.project, personIds, input.deleteEvents);
  });
  return {
    persons_found: outcome.found,
    persons_deleted: outcome.deleted,
    events_queued_for_deletion: outcome.queued > 0,
  };
}

/** A fresh uuid for a split-off person: the platform's deterministic one unless already taken. */
async function splitUuid(db: Db, teamId: number, distinctId: string): Promise<string> {
  const uuid = personUuid(teamId, distinctId);
  return (await isPersonUuidTaken(db, teamId, uuid)) ? crypto.randomUUID() : uuid;
}

/**
 * Every distinct id but the kept one (the given, else the first) moves to a new person of its own
 * with empty properties; the original keeps its properties.
 */
export async function splitPerson(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string; mainDistinctId?: string },
): Promise<{ success: true }> {
  const { project, mainDistinctId } = input;
  const personId = (await requirePerson(deps.db, project, input.id)).id;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await lockPerson(trx, project.id, personId);
    const [person] = await loadPersons(trx, project.id, [personId]);
    if (!person) throw validationError('Person not found.');
    if (mainDistinctId !== undefined && !person.distinct_ids.includes(mainDistinctId)) {
      throw validationError('main_distinct_id is not a distinct id of this person.', 'main_distinct_id');
    }
    const kept = mainDistinctId ?? person.distinct_ids[0];
    for (const distinctId of person.distinct_ids) {
      if (distinctId !== kept)
        await moveToNewPerson(trx, project.id, distinctId, await splitUuid(trx, project.id, distinctId), now);
    }
    const change: ActivityChange = {
      type: 'Person',
      action: 'split',
      field: null,
      before: null,
      after: { distinct_ids: person.distinct_ids },
    };
    await recordActivity(trx, personActivity(project, person, 'split_person', [change], actor.user.id), now);
  });
  return { success: true };
}
