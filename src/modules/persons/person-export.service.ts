// "Send me everything you hold about me": one person's data as one JSON document, streamed. The
// events are read a page at a time as the client takes them, so memory stays the same however
// many there are; nothing of another person is read.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import type { Actor } from '../access/access.service.ts';
import { listCohortsHolding } from '../cohorts/cohorts.service.ts';
import { listPersonActivity } from './person-activity.repository.ts';
import { readPersonEventPage, type EventCursor } from './person-export.repository.ts';
import { serializePerson, type PersonRecord } from './person.serializer.ts';
import { requirePerson } from './persons.service.ts';

export const EXPORT_PAGE_SIZE = 1000;
const ACTIVITY_PAGE_SIZE = 100;

export interface PersonExport {
  filename: string;
  /** The document in pieces; each piece holds at most one page of events. */
  body: AsyncGenerator<string>;
}

/**
 * Finds the person (404 before anything is sent) and logs who exported whom. Not an activity entry:
 * a read changes no row (the reliability harness holds every GET to that).
 */
export async function exportPerson(
  deps: Deps,
  actor: Actor,
  input: { project: TeamRow; id: string; pageSize?: number },
): Promise<PersonExport> {
  const person = await requirePerson(deps.db, input.project, input.id);
  deps.log.info(
    { module: 'person-export', team_id: input.project.id, person_uuid: person.uuid, user_id: actor.user.id },
    'person exported',
  );
  return {
    filename: `person-${person.uuid}.json`,
    body: personDocument(deps, input.project, person, input.pageSize ?? EXPORT_PAGE_SIZE),
  };
}

async function* personDocument(deps: Deps, project: TeamRow, person: PersonRecord, pageSize: number) {
  yield `{"person":${JSON.stringify(serializePerson(person))},"distinct_ids":${JSON.stringify(person.distinct_ids)},"events":[`;
  const scope = { teamId: project.id, personId: person.id, distinctIds: person.distinct_ids };
  let cursor: EventCursor | null = null;
  let separator = '';
  for (;;) {
    const page = await readPersonEventPage(deps.db, scope, cursor, pageSize);
    if (page.length === 0) break;
    const items = page.map((event) =>
      JSON.stringify({
        uuid: event.uuid,
        event: event.event,
        distinct_id: event.distinct_id,
        properties: event.properties,
        timestamp: event.timestamp.toISOString(),
      }),
    );
    yield separator + items.join(',');
    separator = ',';
    const last = page[page.length - 1];
    cursor = { timestamp: last.timestamp, id: last.id };
    if (page.length < pageSize) break;
  }
  yield '],"activity":[';
  separator = '';
  for (let offset = 0; ; offset += ACTIVITY_PAGE_SIZE) {
    const page = await listPersonActivity(
      deps.db,
      { organizationId: project.organization_id, teamId: project.id, itemId: String(person.id) },
      { limit: ACTIVITY_PAGE_SIZE, offset },
    );
    if (page.results.length > 0) yield separator + page.results.map((entry) => JSON.stringify(entry)).join(',');
    separator = ',';
    if (page.results.length < ACTIVITY_PAGE_SIZE) break;
  }
  const cohorts = await listCohortsHolding(deps, { project, personId: person.id });
  yield `],"cohorts":${JSON.stringify(cohorts.map((cohort) => ({ id: cohort.id, name: cohort.name })))}}`;
}
