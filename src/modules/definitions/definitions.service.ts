// Definitions of a project's data, as the platform lists them: event names with their 30 days'
// volume, property keys with their inferred types, and the values seen for an event property.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { validationError } from '../../errors.ts';
import { EVENT_PROPERTY, PERSON_PROPERTY } from '../../ingestion/definitions-seen.ts';
import { flushDefinitions } from '../../ingestion/definitions.ts';
import type { PageRequest } from '../../wire/page.ts';
import {
  countEventsByName,
  eventsCarrying,
  listEventDefinitionRows,
  listPropertyDefinitionRows,
  mostFrequentValues,
} from './definitions.repository.ts';
import type { EventDefinitionWire, PropertyDefinitionWire } from './definitions.schemas.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Writes what capture buffered in this process: before every read here, and when the server closes. */
export const writeBufferedDefinitions = (deps: Deps) => flushDefinitions(deps);

// The platform never lists these as event properties (they carry person updates and group keys).
const HIDDEN_EVENT_PROPERTIES = [
  'distinct_id',
  '$set',
  '$set_once',
  '$unset',
  '$initial_referrer',
  '$initial_referring_domain',
  '$groups',
  '$group_type',
  '$group_key',
  '$group_set',
  '$group_0',
  '$group_1',
  '$group_2',
  '$group_3',
  '$group_4',
];

// The values list reads at most this many events of the last week, and answers at most this many values.
export const VALUES_SAMPLE = 10_000;
export const VALUES_CAP = 50;
const VALUES_DAYS = 7;

export async function listEventDefinitions(
  deps: Deps,
  input: { project: TeamRow; search?: string; page: PageRequest },
): Promise<{ count: number; results: EventDefinitionWire[] }> {
  const teamId = input.project.id;
  await writeBufferedDefinitions(deps);
  const { count, rows } = await listEventDefinitionRows(deps.db, teamId, input);
  const now = deps.clock.now();
  const volumes = await countEventsByName(
    deps.db,
    teamId,
    rows.map((row) => row.name),
    new Date(now.getTime() - 30 * DAY_MS),
    now,
  );
  const results = rows.map((row) => ({
    id: row.id,
    name: row.name,
    created_at: row.created_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    volume_30_day: volumes.get(row.name) ?? 0,
  }));
  return { count, results };
}

function parseEventNames(text: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw validationError('Must be a JSON list of event names.', 'event_names');
  }
  if (!Array.isArray(parsed) || !parsed.every((name) => typeof name === 'string') || parsed.length > 100)
    throw validationError('Must be a JSON list of at most 100 event names.', 'event_names');
  return parsed;
}

function booleanOrNull(text: string | undefined, attr: string): boolean | null {
  if (text === undefined) return null;
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw validationError('Must be a valid boolean.', attr);
}

export interface PropertyDefinitionQueryInput {
  type?: string;
  search?: string;
  event_names?: string;
  is_numerical?: string;
}

export async function listPropertyDefinitions(
  deps: Deps,
  input: { project: TeamRow; query: PropertyDefinitionQueryInput; page: PageRequest },
): Promise<{ count: number; results: PropertyDefinitionWire[] }> {
  const { query } = input;
  const type = query.type ?? 'event';
  if (type !== 'event' && type !== 'person')
    throw validationError(`"${type}" is not a valid choice: \`event\` or \`person\`.`, 'type', 'invalid_choice');
  if (query.event_names !== undefined && type !== 'event')
    throw validationError('`event_names` can only be given with `type=event`.', 'event_names');
  const eventNames = query.event_names === undefined ? null : parseEventNames(query.event_names);
  const filter = {
    kind: type === 'event' ? EVENT_PROPERTY : PERSON_PROPERTY,
    search: query.search,
    eventNames,
    isNumerical: booleanOrNull(query.is_numerical, 'is_numerical'),
    hidden: type === 'event' ? HIDDEN_EVENT_PROPERTIES : [],
  };
  await writeBufferedDefinitions(deps);
  const { count, rows } = await listPropertyDefinitionRows(deps.db, input.project.id, filter, input.page);
  const results = rows.map((row) => ({
    id: row.id,
    name: row.name,
    is_numerical: row.property_type === 'Numeric',
    property_type: row.property_type as PropertyDefinitionWire['property_type'],
    // Every key listed with `event_names` was seen on one of them.
    is_seen_on_filtered_events: eventNames === null ? null : true,
  }));
  return { count, results };
}

export async function listPropertyValues(
  deps: Deps,
  input: { project: TeamRow; key?: string; eventNames?: string[]; contains?: string },
): Promise<{ name: string }[]> {
  if (input.key === undefined || input.key === '') throw validationError('You must provide a key', 'key', 'required');
  const teamId = input.project.id;
  await writeBufferedDefinitions(deps);
  const eventNames = await eventsCarrying(deps.db, teamId, input.key, input.eventNames ?? null);
  const now = deps.clock.now();
  const values = await mostFrequentValues(deps.db, teamId, {
    key: input.key,
    eventNames,
    contains: input.contains,
    since: new Date(now.getTime() - VALUES_DAYS * DAY_MS),
    until: now,
    sample: VALUES_SAMPLE,
    cap: VALUES_CAP,
  });
  return values.map((name) => ({ name }));
}
