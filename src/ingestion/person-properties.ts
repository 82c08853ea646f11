// How one event changes a person's properties (PostHog ingestion §2.4). Copy-on-write: the object
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

/** $set_once where undefined, then $set where different, then $unset of keys present before the event. */
export function applyPropertyUpdates(properties: JsonObject, updates: PropertyUpdates): JsonObject {
  let result: JsonObject | null = null;
  const write = (): JsonObject => (result ??= { ...properties });
  for (const [key, value] of Object.entries(updates.setOnce)) {
    if (!Object.hasOwn(properties, key) && !(result !== null && Object.hasOwn(result, key))) write()[key] = value;
  }
  for (const [key, value] of Object.entries(updates.set)) {
    const current = result !== null ? (result as JsonObject)[key] : properties[key];
    const present = result !== null ? Object.hasOwn(result, key) : Object.hasOwn(properties, key);
    if (!present || !sameValue(current, value)) write()[key] = value;
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
