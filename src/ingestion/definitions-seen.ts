// What a batch of events shows about the project's data: event names, event and person property
// keys with the type their values show, which keys each event name carries (definitions.ts keeps
// them). Pure: no database.
import type { JsonObject } from '../db/schema.ts';
import type { PreparedEvent } from './normalize-event.step.ts';

export type PropertyType = 'String' | 'Numeric' | 'DateTime' | 'Boolean';

export const EVENT_PROPERTY = 1;
export const PERSON_PROPERTY = 2;

// An ISO 8601 date or date-time (the platform's DateTime detection of string values);
// migration 0017 holds the same pattern for the backfill.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

/** The type a value shows; null for null, objects and lists (left untyped). */
export function propertyTypeOf(value: unknown): PropertyType | null {
  if (typeof value === 'number') return 'Numeric';
  if (typeof value === 'boolean') return 'Boolean';
  if (typeof value !== 'string') return null;
  const lower = value.toLowerCase();
  if (lower === 'true' || lower === 'false') return 'Boolean';
  return DATE_TIME.test(value) ? 'DateTime' : 'String';
}

export interface SeenDefinitions {
  events: Set<string>;
  /** key → its first typed value's type (null while only untyped values were seen), per kind. */
  properties: Map<number, Map<string, PropertyType | null>>;
  /** event name → its property keys. */
  eventProperties: Map<string, Set<string>>;
}

function noteProperties(target: Map<string, PropertyType | null>, properties: JsonObject): void {
  for (const [key, value] of Object.entries(properties)) {
    if (target.get(key)) continue;
    target.set(key, propertyTypeOf(value));
  }
}

/** What the batch's stored events show. */
export function seenInBatch(events: PreparedEvent[]): SeenDefinitions {
  const eventProps = new Map<string, PropertyType | null>();
  const personProps = new Map<string, PropertyType | null>();
  const eventProperties = new Map<string, Set<string>>();
  for (const event of events) {
    noteProperties(eventProps, event.properties);
    let keys = eventProperties.get(event.event);
    if (!keys) eventProperties.set(event.event, (keys = new Set()));
    for (const key of Object.keys(event.properties)) keys.add(key);
    if (event.processPerson) {
      noteProperties(personProps, event.updates.setOnce);
      noteProperties(personProps, event.updates.set);
    }
  }
  return {
    events: new Set(eventProperties.keys()),
    properties: new Map([
      [EVENT_PROPERTY, eventProps],
      [PERSON_PROPERTY, personProps],
    ]),
    eventProperties,
  };
}

const SEP = '\u0000';

/**
 * The batch's definitions as entries, `<team>\0<kind>\0…` text (names and keys hold no NUL:
 * sanitize-json replaces it), so that a process can remember and buffer them in plain maps.
 */
export function entriesOf(teamId: number, seen: SeenDefinitions): string[] {
  const entries = [...seen.events].filter(kept).map((name) => [teamId, 'e', name].join(SEP));
  for (const [kind, keys] of seen.properties) {
    for (const [key, type] of keys) if (kept(key)) entries.push([teamId, 'p', kind, type ?? '', key].join(SEP));
  }
  for (const [event, keys] of seen.eventProperties) {
    if (!kept(event)) continue;
    for (const key of keys) if (kept(key)) entries.push([teamId, 'ep', event, key].join(SEP));
  }
  return entries;
}

/**
 * The longest name or key a definition keeps (the platform's definitions hold 400 characters); a
 * longer one is no definition (its index entry could pass PostgreSQL's limit for a btree row).
 */
export const MAX_DEFINITION_NAME = 400;

const kept = (name: string) => name.length <= MAX_DEFINITION_NAME;

/** An entry's parts: its team, its kind (`e`, `p`, `ep`) and its fields. */
export function partsOf(entry: string): { teamId: number; kind: string; fields: string[] } {
  const [teamId, kind, ...fields] = entry.split(SEP);
  return { teamId: Number(teamId), kind, fields };
}
