// How one event changes a person's properties (as PostHog's ingestion applies it). Copy-on-write: the object
// given is never modified, so earlier events' snapshots can share it safely.
import type { JsonObject } from '../db/schema.ts';

export interface PropertyUpdates {
  set: JsonObject;
  setOnce: JsonObject;
  unset: string[];
}

function sameValue(a: unknown, b: unknown): boolean {
  // Objects and arrays always count as changed, as in PostHog.
  if (typeof a === 'object' && a !== null) return false;
  return a === b;
}

// A data property even for a key like "__proto__", which plain assignment would not store.
function setKey(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** $set_once where undefined, then $set where different, then $unset of keys present before the event. */
export function applyPropertyUpdates(properties: JsonObject, updates: PropertyUpdates): JsonObject {
  let result: JsonObject | null = null;
  const current = (): JsonObject => result ?? properties;
  const write = (): JsonObject => (result ??= { ...properties });
  for (const [key, value] of Object.entries(updates.setOnce)) {
    if (!Object.hasOwn(current(), key)) setKey(write(), key, value);
  }
  for (const [key, value] of Object.entries(updates.set)) {
    const target = current();
    if (!Object.hasOwn(target, key) || !sameValue(target[key], value)) setKey(write(), key, value);
  }
  for (const key of updates.unset) {
    if (Object.hasOwn(properties, key)) delete write()[key];
  }
  return result ?? properties;
}

/** A new person's properties: $set_once, then $set over it; $unset does not apply on creation. */
export function initialProperties(updates: PropertyUpdates): JsonObject {
  return { ...updates.setOnce, ...updates.set };
}
