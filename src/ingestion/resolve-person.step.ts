// Step 2 of the pipeline: apply one prepared event to the batch's persons
// and say which person the event belongs to, with that person's properties after the event.
import type { JsonObject } from '../db/schema.ts';
import { isIllegalDistinctId } from './distinct-ids.ts';
import type { PreparedEvent } from './normalize-event.step.ts';
import {
  attachDistinctId,
  createPerson,
  mergeInto,
  personOf,
  type PersonBatch,
  type PersonState,
} from './person-batch.ts';
import { applyPropertyUpdates, initialProperties } from './person-properties.ts';
import { personUuid } from './uuid.ts';

export interface ResolvedEvent {
  event: PreparedEvent;
  person: PersonState | null;
  /** The person's properties as of this event (shared, never modified afterwards). */
  personProperties: JsonObject;
  warnings: string[];
}

// PostHog's write skipping: an ordinary event that only changes existing keys of this list
// changes the person in memory (later snapshots of the batch see it) but forces no write.
const VOLATILE_KEYS = new Set([
  ...[
    '$current_url',
    '$pathname',
    '$referring_domain',
    '$referrer',
    '$screen_height',
    '$screen_width',
    '$viewport_height',
  ],
  ...[
    '$viewport_width',
    '$browser',
    '$browser_version',
    '$device_type',
    '$raw_user_agent',
    '$os',
    '$os_name',
    '$os_version',
  ],
]);
const ALWAYS_WRITTEN_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$set']);

function onlyVolatileChanges(before: JsonObject, after: JsonObject): boolean {
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) return false;
  for (const [key, value] of Object.entries(after)) {
    if (!Object.hasOwn(before, key)) return false;
    if (before[key] !== value && !VOLATILE_KEYS.has(key)) return false;
  }
  return true;
}

function update(person: PersonState, event: PreparedEvent, identified: boolean): void {
  const properties = applyPropertyUpdates(person.properties, event.updates);
  const identify = identified && !person.isIdentified;
  if (properties === person.properties && !identify) return;
  const skipWrite =
    !identify && !ALWAYS_WRITTEN_EVENTS.has(event.event) && onlyVolatileChanges(person.properties, properties);
  person.properties = properties;
  if (skipWrite) return;
  if (identify) person.isIdentified = true;
  person.version += 1;
  person.changed = true;
}

// PostHog never lets these events change the properties of a person that already exists.
const NO_UPDATE_EVENTS = new Set(['$exception', '$$heatmap']);

function getOrCreate(
  batch: PersonBatch,
  event: PreparedEvent,
  distinctIds: string[],
  identified: boolean,
): PersonState {
  const existing = personOf(batch, distinctIds[0]);
  if (existing) {
    if (!NO_UPDATE_EVENTS.has(event.event)) update(existing, event, identified);
    return existing;
  }
  return createPerson(
    batch,
    {
      uuid: personUuid(batch.teamId, distinctIds[0]),
      // As the platform: a person made by capture names the event that made it.
      properties: { ...initialProperties(event.updates), $creator_event_uuid: event.uuid },
      createdAt: event.timestamp,
      isIdentified: identified,
    },
    distinctIds,
  );
}

/** $identify / $create_alias / $merge_dangerously between `source` and the event's distinct id. */
function identify(batch: PersonBatch, event: PreparedEvent, source: string, warnings: string[]): PersonState {
  const targetId = event.distinctId;
  const target = personOf(batch, targetId);
  const other = personOf(batch, source);
  if (!target && !other) return getOrCreate(batch, event, [targetId, source], true);
  if (target && !other) {
    attachDistinctId(batch, target, source);
    update(target, event, true);
    return target;
  }
  if (!target && other) {
    // The person keeps its uuid even when it came from the anonymous id.
    attachDistinctId(batch, other, targetId);
    update(other, event, true);
    return other;
  }
  if (target === other) {
    update(target as PersonState, event, true);
    return target as PersonState;
  }
  const survivor = target as PersonState;
  if ((other as PersonState).isIdentified && event.merge?.kind !== '$merge_dangerously') {
    warnings.push('cannot_merge_already_identified');
    update(survivor, event, true);
    return survivor;
  }
  mergeInto(batch, other as PersonState, survivor);
  update(survivor, event, true);
  return survivor;
}

export function resolvePerson(batch: PersonBatch, event: PreparedEvent): ResolvedEvent {
  const warnings: string[] = [];
  if (!event.processPerson) {
    // Personless: attributed to an existing person if there is one; nothing is created or changed.
    const person = personOf(batch, event.distinctId);
    return { event, person, personProperties: person?.properties ?? {}, warnings };
  }
  const source = event.merge?.source ?? null;
  let person: PersonState;
  if (event.merge && source !== event.distinctId) {
    if (source === null || isIllegalDistinctId(source) || isIllegalDistinctId(event.distinctId)) {
      warnings.push('cannot_merge_with_illegal_distinct_id');
      person = getOrCreate(batch, event, [event.distinctId], false);
    } else {
      person = identify(batch, event, source, warnings);
    }
  } else {
    person = getOrCreate(batch, event, [event.distinctId], false);
  }
  return { event, person, personProperties: person.properties, warnings };
}
