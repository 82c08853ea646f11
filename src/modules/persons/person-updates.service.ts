// Property changes through the API go through capture, as the platform does: a `$set` or a
// `$delete_person_property` event for the person's first distinct id, applied in the same
// transaction as the activity entry, so the answer already shows the change.
import { isDeepStrictEqual } from 'node:util';
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { notFound, validationError } from '../../errors.ts';
import { ingestEvents, type CaptureEvent } from '../../ingestion/ingest.ts';
import type { Actor } from '../access/access.service.ts';
import { personActivity, recordActivity, type ActivityChange } from '../activity/activity.repository.ts';
import { recordPersonMerges } from './person-activity.repository.ts';
import { serializePerson, type PersonRecord, type PersonWire } from './person.serializer.ts';
import { loadPersons } from './persons.repository.ts';
import { requirePerson } from './persons.service.ts';

async function reload(db: Db, teamId: number, personId: number): Promise<PersonRecord> {
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

/**
 * Sends the event that `eventOf` makes for the person, in one transaction with the activity entry
 * that `changesOf` describes; answers the person as it is after the event.
 */
async function changePerson(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string },
  activity: string,
  eventOf: (distinctId: string) => CaptureEvent,
  changesOf: (before: PersonRecord, after: PersonRecord) => ActivityChange[],
): Promise<PersonWire> {
  const { project } = input;
  const { id } = await requirePerson(deps.db, project, input.id);
  return deps.db.transaction().execute(async (trx) => {
    const before = await reload(trx, project.id, id);
    const { merges } = await ingestEvents(deps, trx, project, [eventOf(firstDistinctId(before))]);
    await recordPersonMerges(trx, project, merges, actor.user.id, deps.clock.now());
    const after = await reload(trx, project.id, id);
    await recordActivity(
      trx,
      personActivity(project, after, activity, changesOf(before, after), actor.user.id),
      deps.clock.now(),
    );
    return serializePerson(after);
  });
}

/** `$set` of the given properties; one `updated` entry with a change per key whose value changed. */
export function setPersonProperties(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string; properties: Record<string, unknown> },
): Promise<PersonWire> {
  const { properties } = input;
  return changePerson(
    deps,
    actor,
    input,
    'updated',
    (distinctId) => ({ event: '$set', distinct_id: distinctId, properties: { $set: properties } }),
    (before, after) =>
      Object.keys(properties)
        .filter((key) => !isDeepStrictEqual(before.properties[key], after.properties[key]))
        .map((key) => ({
          type: 'Person',
          action: 'changed',
          field: key,
          before: before.properties[key] ?? null,
          after: after.properties[key] ?? null,
        })),
  );
}

/** `$delete_person_property` with `{"$unset": [key]}`; one `delete_property` entry. */
export function unsetPersonProperty(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string; key: string },
): Promise<PersonWire> {
  const { key } = input;
  return changePerson(
    deps,
    actor,
    input,
    'delete_property',
    (distinctId) => ({ event: '$delete_person_property', distinct_id: distinctId, properties: { $unset: [key] } }),
    (before) => [
      { type: 'Person', action: 'changed', field: key, before: before.properties[key] ?? null, after: null },
    ],
  );
}
