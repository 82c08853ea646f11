// Property changes through the API go through capture, as the platform does: a `$set` or a
// `$delete_person_property` event for the person's first distinct id, applied in the same
// transaction as the activity entry, so the answer already shows the change.
import { isDeepStrictEqual } from 'node:util';
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { notFound, validationError } from '../../errors.ts';
import { ingestEvents } from '../../ingestion/ingest.ts';
import { recordActivity, type ActivityChange } from '../activity/activity.repository.ts';
import { loadPersons, type PersonRecord } from './person.serializer.ts';
import { personActivity, type PersonActor } from './persons.service.ts';

async function reload(deps: Deps, db: Deps['db'], teamId: number, personId: number): Promise<PersonRecord> {
  const [person] = await loadPersons(db, teamId, [personId]);
  // The event went to a distinct id the person may have lost to a concurrent merge.
  if (!person) throw notFound();
  return person;
}

function firstDistinctId(person: PersonRecord): string {
  const distinctId = person.distinct_ids[0];
  if (distinctId === undefined) throw validationError('This person has no distinct ids to send an event for.');
  return distinctId;
}

/** `$set` of the given properties; one `updated` entry with a change per key whose value changed. */
export async function setPersonProperties(deps: Deps, project: TeamRow, person: PersonRecord, properties: Record<string, unknown>, actor: PersonActor): Promise<PersonRecord> {
  return deps.db.transaction().execute(async (trx) => {
    const [before] = await loadPersons(trx, project.id, [person.id]);
    if (!before) throw notFound();
    await ingestEvents(deps, trx, project, [{ event: '$set', distinct_id: firstDistinctId(before), properties: { $set: properties } }], actor);
    const after = await reload(deps, trx, project.id, person.id);
    const changes: ActivityChange[] = Object.keys(properties)
      .filter((key) => !isDeepStrictEqual(before.properties[key], after.properties[key]))
      .map((key) => ({ type: 'Person', action: 'changed', field: key, before: before.properties[key] ?? null, after: after.properties[key] ?? null }));
    await recordActivity(trx, personActivity(project, after, 'updated', changes, actor), deps.clock.now());
    return after;
  });
}

/** `$delete_person_property` with `{"$unset": [key]}`; one `delete_property` entry. */
export async function unsetPersonProperty(deps: Deps, project: TeamRow, person: PersonRecord, key: string, actor: PersonActor): Promise<PersonRecord> {
  return deps.db.transaction().execute(async (trx) => {
    const [before] = await loadPersons(trx, project.id, [person.id]);
    if (!before) throw notFound();
    await ingestEvents(deps, trx, project, [{ event: '$delete_person_property', distinct_id: firstDistinctId(before), properties: { $unset: [key] } }], actor);
    const after = await reload(deps, trx, project.id, person.id);
    const change: ActivityChange = { type: 'Person', action: 'changed', field: key, before: before.properties[key] ?? null, after: null };
    await recordActivity(trx, personActivity(project, after, 'delete_property', [change], actor), deps.clock.now());
    return after;
  });
}
