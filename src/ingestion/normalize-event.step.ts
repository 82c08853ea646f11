// Step 1 of the pipeline: one client event → the event to store and the person changes it asks
// for. Pure: no database, no clock of its own.
import type { JsonObject } from '../db/schema.ts';
import { validationError } from '../errors.ts';
import { jsonValueText } from '../json-shape.ts';
import { cleanDistinctId, cutToCodePoints } from './distinct-ids.ts';
import type { PropertyUpdates } from './person-properties.ts';
import { resolveTimestamp } from './timestamps.ts';
import { isUuid } from '../wire/ids.ts';
import { uuidV7 } from './uuid.ts';

export const MAX_EVENT_NAME_LENGTH = 200;

export interface NormalizableEvent {
  event: string;
  distinct_id: string;
  properties?: Record<string, unknown>;
  timestamp?: string | Date;
  uuid?: string;
  offset?: number;
  $set?: Record<string, unknown>;
  $set_once?: Record<string, unknown>;
  $unset?: string[];
}

export interface NormalizeContext {
  now: Date;
  sentAt: Date | null;
  /** How errors name the event, e.g. "batch.3". Empty for a single event. */
  attrPrefix: string;
  /** The client's address as capture saw it; becomes $ip unless the event has one. */
  ip?: string;
}

export type MergeKind = '$identify' | '$create_alias' | '$merge_dangerously';

export interface PreparedEvent {
  uuid: string;
  uuidGiven: boolean;
  event: string;
  distinctId: string;
  timestamp: Date;
  properties: JsonObject;
  updates: PropertyUpdates;
  processPerson: boolean;
  /** The other distinct id of an $identify / $create_alias / $merge_dangerously, when it has one. */
  merge: { kind: MergeKind; source: string | null } | null;
}

// Events that only make sense with a person: dropped when person processing is off.
const PERSON_ONLY_EVENTS = new Set(['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']);

// PostHog's automatic person properties: these event properties also go to $set, and their first
// values to $set_once as `$initial_<key without $>`. $os_name only stands in for a missing $os.
const AUTO_SET_KEYS = [
  ...[
    '$app_build',
    '$app_name',
    '$app_namespace',
    '$app_version',
    '$browser',
    '$browser_version',
    '$device_type',
    '$current_url',
  ],
  ...[
    '$pathname',
    '$os',
    '$os_version',
    '$referring_domain',
    '$referrer',
    '$screen_height',
    '$screen_width',
    '$viewport_height',
  ],
  ...[
    '$viewport_width',
    '$raw_user_agent',
    'utm_source',
    'utm_medium',
    'utm_campaign',
    'utm_content',
    'utm_name',
    'utm_term',
  ],
  ...[
    'gclid',
    'gad_source',
    'gclsrc',
    'dclid',
    'gbraid',
    'wbraid',
    'fbclid',
    'msclkid',
    'twclid',
    'li_fat_id',
    'mc_cid',
    'igshid',
  ],
  ...['ttclid', 'rdt_cid', 'irclid', '_kx', 'epik', 'qclid', 'sccid'],
];
const NO_AUTO_SET_EVENTS = new Set(['$snapshot', '$performance_event']);

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function unsetKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((key) => (typeof key === 'string' ? key : JSON.stringify(key)));
  if (isObject(value)) return Object.keys(value);
  return [];
}

function attrOf(context: NormalizeContext, field: string): string {
  return context.attrPrefix ? `${context.attrPrefix}.${field}` : field;
}

function mergeOf(name: string, properties: JsonObject): PreparedEvent['merge'] {
  if (name === '$identify') {
    // Only the presence of the key matters: null reads "null", an illegal id.
    return Object.hasOwn(properties, '$anon_distinct_id')
      ? { kind: name, source: cleanDistinctId(jsonValueText(properties.$anon_distinct_id)) }
      : null;
  }
  if (name === '$create_alias' || name === '$merge_dangerously') {
    return properties.alias ? { kind: name, source: cleanDistinctId(jsonValueText(properties.alias)) } : null;
  }
  return null;
}

function addAutoProperties(set: JsonObject, setOnce: JsonObject, properties: JsonObject): void {
  const source =
    Object.hasOwn(properties, '$os') || !Object.hasOwn(properties, '$os_name')
      ? properties
      : { ...properties, $os: properties.$os_name };
  for (const key of AUTO_SET_KEYS) {
    if (!Object.hasOwn(source, key)) continue;
    if (!Object.hasOwn(set, key)) set[key] = source[key];
    const initial = `$initial_${key.replace(/^\$/, '')}`;
    if (!Object.hasOwn(setOnce, initial)) setOnce[initial] = source[key];
  }
}

/** The prepared event, or null when PostHog drops it (a person-only event without person processing). */
export function normalizeEvent(raw: NormalizableEvent, context: NormalizeContext): PreparedEvent | null {
  if (typeof raw.event !== 'string' || raw.event === '') {
    throw validationError('event submitted with an empty event name', attrOf(context, 'event'));
  }
  const distinctId = cleanDistinctId(raw.distinct_id);
  if (distinctId === null)
    throw validationError('event submitted without a distinct_id', attrOf(context, 'distinct_id'));
  const uuidGiven = typeof raw.uuid === 'string' && raw.uuid !== '';
  if (uuidGiven && !isUuid(raw.uuid as string)) throw validationError('Must be a valid UUID.', attrOf(context, 'uuid'));

  const properties: JsonObject = isObject(raw.properties) ? { ...raw.properties } : {};
  // Top-level $set / $set_once are merged into the properties' own; the top level wins.
  const set = { ...(isObject(properties.$set) ? properties.$set : {}), ...(isObject(raw.$set) ? raw.$set : {}) };
  const setOnce = {
    ...(isObject(properties.$set_once) ? properties.$set_once : {}),
    ...(isObject(raw.$set_once) ? raw.$set_once : {}),
  };
  const unset = [...new Set([...unsetKeys(properties.$unset), ...unsetKeys(raw.$unset)])];
  const timestamp = resolveTimestamp(
    { timestamp: raw.timestamp, offset: raw.offset, ignoreSentAt: Boolean(properties.$ignore_sent_at) },
    context.now,
    context.sentAt,
  );
  if (!NO_AUTO_SET_EVENTS.has(raw.event)) addAutoProperties(set, setOnce, properties);
  if (raw.event === 'survey shown') set.$survey_last_seen_date = timestamp.toISOString();
  if (Object.keys(set).length > 0) properties.$set = set;
  if (Object.keys(setOnce).length > 0) properties.$set_once = setOnce;
  if (context.sentAt) properties.$sent_at = context.sentAt.toISOString();
  if (context.ip && !Object.hasOwn(properties, '$ip')) properties.$ip = context.ip;

  // Only boolean false turns person processing off; anything else counts as true.
  const processPerson = properties.$process_person_profile !== false;
  if (!processPerson && PERSON_ONLY_EVENTS.has(raw.event)) return null;
  const stripUpdates = !processPerson || raw.event === '$groupidentify';
  if (stripUpdates) {
    delete properties.$set;
    delete properties.$set_once;
    delete properties.$unset;
  }

  return {
    uuid: uuidGiven ? (raw.uuid as string).toLowerCase() : uuidV7(context.now),
    uuidGiven,
    // Event names are indexed; like distinct ids they are cut to 200 characters (a btree entry holds ~2.7 kB).
    event: cutToCodePoints(raw.event, MAX_EVENT_NAME_LENGTH),
    distinctId,
    timestamp,
    properties,
    updates: stripUpdates ? { set: {}, setOnce: {}, unset: [] } : { set, setOnce, unset },
    processPerson,
    merge: processPerson ? mergeOf(raw.event, properties) : null,
  };
}
