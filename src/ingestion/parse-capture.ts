// Capture payload shapes: an array of events, a batch object, or one
// event; where the project token is; and each event's fields checked with the field at fault.
import { validationError } from '../errors.ts';
import type { NormalizableEvent } from './normalize-event.step.ts';
import { parseClientTime } from './timestamps.ts';
import { jsonTypeName } from '../json-shape.ts';

export interface CapturePayload {
  token: string | null;
  items: unknown[];
  sentAt: Date | null;
  /** How an error names item `index`: "batch.3", "3", or "" for a single event. */
  attrPrefix: (index: number) => string;
}

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const present = (value: unknown) => value !== undefined && value !== null && value !== '';

// The first field that holds a token: an empty `api_key` does not hide a `token` beside it.
function tokenOfEvent(event: unknown): unknown {
  if (!isObject(event)) return undefined;
  const properties = isObject(event.properties) ? event.properties : {};
  return [event.api_key, event.token, event.$token, properties.token].find(present);
}

function tokenText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The events' common token; several different ones are an error. */
function tokenOfEvents(events: unknown[]): string | null {
  const tokens = new Set(events.map(tokenOfEvent).filter(present).map(tokenText));
  if (tokens.size > 1) throw validationError('batch submitted with inconsistent api_key values');
  return tokens.size === 1 ? [...tokens][0] : null;
}

/** `_` in the query is the client's send time in ms, used only when it reads as a year after 2020. */
function sentAtOf(body: JsonObject | null, query: Record<string, unknown>): Date | null {
  if (body && typeof body.sent_at === 'string') {
    const parsed = parseClientTime(body.sent_at);
    if (parsed) return parsed;
  }
  const ms = Number(query._);
  if (typeof query._ === 'string' && Number.isFinite(ms)) {
    const parsed = new Date(ms);
    if (!Number.isNaN(parsed.getTime()) && parsed.getUTCFullYear() > 2020) return parsed;
  }
  return null;
}

export function parseCapturePayload(body: unknown, query: Record<string, unknown> = {}): CapturePayload {
  if (Array.isArray(body)) {
    if (body.length === 0) throw validationError('No events in the request.');
    return { token: tokenOfEvents(body), items: body, sentAt: sentAtOf(null, query), attrPrefix: String };
  }
  if (!isObject(body))
    throw validationError(`Invalid data. Expected a dictionary or a list, but got ${jsonTypeName(body)}.`);
  if (Object.hasOwn(body, 'batch')) {
    const batch = body.batch;
    if (!Array.isArray(batch))
      throw validationError(`Expected a list of items but got type "${jsonTypeName(batch)}".`, 'batch');
    if (batch.length === 0) throw validationError('No events in the batch.', 'batch');
    // The batch's own key wins over any key its events carry.
    const own = present(body.api_key) ? body.api_key : present(body.token) ? body.token : undefined;
    return {
      token: own !== undefined ? tokenText(own) : tokenOfEvents(batch),
      items: batch,
      sentAt: sentAtOf(body, query),
      attrPrefix: (index) => `batch.${index}`,
    };
  }
  const token = tokenOfEvent(body);
  return {
    token: present(token) ? tokenText(token) : null,
    items: [body],
    sentAt: sentAtOf(body, query),
    attrPrefix: () => '',
  };
}

function optionalOf(
  event: JsonObject,
  field: string,
  check: (value: unknown) => boolean,
  message: string,
  prefix: string,
) {
  const value = event[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw validationError(message, prefix ? `${prefix}.${field}` : field);
  return value;
}

/** One item of the payload as an event to normalize; wrong field types are 400 naming the field. */
export function eventOfItem(item: unknown, prefix: string): NormalizableEvent {
  if (!isObject(item))
    throw validationError(`Expected a dictionary of items but got type "${jsonTypeName(item)}".`, prefix || null);
  const notString = 'Not a valid string.';
  const notObject = (value: unknown) => `Expected a dictionary of items but got type "${jsonTypeName(value)}".`;
  const properties = optionalOf(item, 'properties', isObject, notObject(item.properties), prefix) as
    JsonObject | undefined;
  const event = optionalOf(item, 'event', (value) => typeof value === 'string', notString, prefix) as
    string | undefined;
  const distinctId = item.distinct_id ?? item.$distinct_id ?? properties?.distinct_id;
  const unset = item.$unset;
  return {
    event: event ?? '',
    distinct_id: distinctId as string,
    properties,
    uuid: optionalOf(item, 'uuid', (value) => typeof value === 'string', notString, prefix) as string | undefined,
    timestamp: optionalOf(item, 'timestamp', (value) => typeof value === 'string', notString, prefix) as
      string | undefined,
    offset: optionalOf(
      item,
      'offset',
      (value) => typeof value === 'number' && Number.isFinite(value),
      'A valid number is required.',
      prefix,
    ) as number | undefined,
    $set: optionalOf(item, '$set', isObject, notObject(item.$set), prefix) as JsonObject | undefined,
    $set_once: optionalOf(item, '$set_once', isObject, notObject(item.$set_once), prefix) as JsonObject | undefined,
    $unset: Array.isArray(unset)
      ? unset.map((key) => (typeof key === 'string' ? key : JSON.stringify(key)))
      : isObject(unset)
        ? Object.keys(unset)
        : undefined,
  };
}
