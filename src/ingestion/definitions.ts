// The definitions a batch shows (event names, event and person property keys with their types,
// which keys each event carries), written after the batch, per batch, never per event: at most one
// upsert statement per table, its rows sorted (two batches lock shared rows in the same order).
// A process remembers what it wrote for an hour (DefinitionsMemory): a batch of names and keys all
// written within the hour writes nothing, so steady traffic costs a few map lookups per batch.
// `last_seen_at` is kept in whole hours, so a name's row changes at most once an hour (write
// amplification).
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { JsonObject } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import type { PreparedEvent } from './normalize-event.step.ts';
import { rowsOf } from './write-sql.ts';

export type PropertyType = 'String' | 'Numeric' | 'DateTime' | 'Boolean';

export const EVENT_PROPERTY = 1;
export const PERSON_PROPERTY = 2;

/** How often a name's `last_seen_at` moves, and how long a process trusts what it wrote. */
export const SEEN_GRANULARITY_MS = 60 * 60 * 1000;

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

// Bounded: past this many entries a process forgets them all and writes them again once.
const MEMORY_CAP = 100_000;

/** What one process wrote lately, per database: entry → when. */
export class DefinitionsMemory {
  private readonly written = new Map<string, number>();

  /** The entries not written within the granularity, noted as written now (forgotten if the write fails). */
  fresh(entries: string[], now: number): string[] {
    return entries.filter((entry) => {
      const at = this.written.get(entry);
      return at === undefined || now - at >= SEEN_GRANULARITY_MS || now < at;
    });
  }

  remember(entries: string[], now: number): void {
    if (this.written.size + entries.length > MEMORY_CAP) this.written.clear();
    for (const entry of entries) this.written.set(entry, now);
  }
}

const memories = new WeakMap<Db, DefinitionsMemory>();

/** The memory of the process for this database handle (tests open many databases in one process). */
export function definitionsMemoryOf(db: Db): DefinitionsMemory {
  let memory = memories.get(db);
  if (!memory) memories.set(db, (memory = new DefinitionsMemory()));
  return memory;
}

const SEP = '\u0000';
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Writes what `seen` shows for the project, leaving out what `memory` says was written within the
 * granularity (no memory: all of it, as inside a caller's transaction that may still roll back).
 */
export async function recordDefinitions(
  db: Db,
  teamId: number,
  seen: SeenDefinitions,
  now: Date,
  memory: DefinitionsMemory | null,
): Promise<void> {
  const at = now.getTime();
  const keep = (entries: string[]) => (memory ? memory.fresh(entries, at) : entries).sort(byText);
  const events = keep([...seen.events].map((name) => `${teamId}${SEP}e${SEP}${name}`));
  const properties = keep(
    [...seen.properties].flatMap(([kind, keys]) =>
      [...keys].map(([key, type]) => `${teamId}${SEP}p${SEP}${kind}${SEP}${type ?? ''}${SEP}${key}`),
    ),
  );
  const pairs = keep(
    [...seen.eventProperties].flatMap(([event, keys]) =>
      [...keys].map((key) => `${teamId}${SEP}ep${SEP}${event}${SEP}${key}`),
    ),
  );
  const fields = (entry: string) => entry.split(SEP).slice(2);
  if (events.length > 0) {
    // Whole hours: the row changes once an hour at most (Citus also wants the upsert's condition
    // immutable, so no interval arithmetic in SQL).
    const seenAt = new Date(at - (at % SEEN_GRANULARITY_MS));
    const rows = events.map((entry) => ({ name: fields(entry)[0] }));
    await sql`insert into event_definitions (team_id, name, created_at, last_seen_at)
      select ${teamId}::integer, v.name, ${now}::timestamptz, ${seenAt}::timestamptz
      from ${rowsOf(rows)} as v (name text)
      on conflict (team_id, name) do update set last_seen_at = excluded.last_seen_at
        where event_definitions.last_seen_at < excluded.last_seen_at`.execute(db);
  }
  if (properties.length > 0) {
    // One row per (kind, key): a key seen with two types in the batch keeps its first typed one.
    const unique = new Map<string, { kind: number; name: string; property_type: string | null }>();
    for (const entry of properties) {
      const [kind, type, name] = fields(entry);
      const id = `${kind}${SEP}${name}`;
      if (!unique.get(id)?.property_type) unique.set(id, { kind: Number(kind), name, property_type: type || null });
    }
    const rows = [...unique.values()].sort((a, b) => a.kind - b.kind || byText(a.name, b.name));
    await sql`insert into property_definitions (team_id, kind, name, property_type)
      select ${teamId}::integer, v.kind, v.name, v.property_type
      from ${rowsOf(rows)} as v (kind smallint, name text, property_type text)
      on conflict (team_id, kind, name) do update set property_type = excluded.property_type
        where property_definitions.property_type is null and excluded.property_type is not null`.execute(db);
  }
  if (pairs.length > 0) {
    const rows = pairs.map((entry) => {
      const [event, property] = fields(entry);
      return { event, property };
    });
    await sql`insert into event_properties (team_id, event, property)
      select ${teamId}::integer, v.event, v.property from ${rowsOf(rows)} as v (event text, property text)
      on conflict do nothing`.execute(db);
  }
  memory?.remember([...events, ...properties, ...pairs], at);
}

/**
 * After a batch: inside a caller's transaction, written with it (and failing with it); after a
 * committed batch, in statements of their own (short row locks), a failure only logged — the
 * events are stored, and a later batch writes what this one missed.
 */
export async function recordBatchDefinitions(
  deps: Deps,
  db: Db,
  teamId: number,
  seen: SeenDefinitions | null,
): Promise<void> {
  if (!seen) return;
  if (db.isTransaction) return recordDefinitions(db, teamId, seen, deps.clock.now(), null);
  try {
    await recordDefinitions(db, teamId, seen, deps.clock.now(), definitionsMemoryOf(deps.db));
  } catch (error) {
    deps.log.warn({ err: error, teamId }, 'definitions not recorded');
  }
}
