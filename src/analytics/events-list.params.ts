// Parameter intake of the events list: every filter, bound and the keyset cursor checked, each bad
// value a 400 naming its parameter.
import { validationError } from '../errors.ts';
import { personRefOf } from '../modules/persons/person-ref.ts';
import { findPersonRow } from '../modules/persons/persons.repository.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../wire/page.ts';
import { isUuid } from '../wire/ids.ts';
import type { ViewContext } from './view-context.ts';
import { parseDate } from './date-range.ts';
import { propertiesParam, type FilterNode } from './filters.ts';
import { CSV_DEFAULT_LIMIT, CSV_MAX_LIMIT } from './events-list.schemas.ts';
import { intParam, stringParam, type RawParams } from './params.ts';

/** A place in the newest-first order: the timestamp to the microsecond, as text, and the uuid. */
export interface EventCursor {
  timestamp: string;
  uuid: string;
}

export interface EventListRequest {
  event?: string;
  distinctId?: string;
  /** The person's id; -1 when the named person does not exist (nothing matches). */
  personId?: number;
  filter: FilterNode | null;
  /** Local wall-clock times in the project's timezone (see date-range.ts). */
  after?: Date;
  before?: Date;
  /** Events strictly after it in the newest-first order. */
  cursor?: EventCursor;
  /** Events skipped before the page (the platform's deprecated paging; `next` uses the cursor). */
  offset: number;
  limit: number;
}

/** The platform's cap on the deprecated offset: each skipped event is read. */
export const MAX_OFFSET = 50_000;

const CURSOR_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?Z$/;

/** `<timestamp>,<uuid>`, as `next` writes it; anything else is a 400 on `cursor`. */
export function parseCursor(raw: string): EventCursor {
  const [timestamp = '', uuid = '', ...rest] = raw.split(',');
  const time = CURSOR_TIME.exec(timestamp);
  const date = time ? new Date(`${timestamp.slice(0, 19)}Z`) : null;
  const valid =
    time !== null &&
    date !== null &&
    !Number.isNaN(date.getTime()) &&
    date.toISOString().slice(0, 19) === timestamp.slice(0, 19) &&
    Number(time[1]) >= 1;
  if (!valid || rest.length > 0 || !isUuid(uuid)) throw validationError('Not a valid cursor.', 'cursor');
  return { timestamp, uuid: uuid.toLowerCase() };
}

/** Leaves without a `type` test the event's properties here, as the platform's events list reads them. */
function eventByDefault(raw: unknown, depth = 0): unknown {
  // Deeper than any filter may nest: left as it is, for the parser to refuse.
  if (depth > 25) return raw;
  if (Array.isArray(raw)) return raw.map((item) => eventByDefault(item, depth + 1));
  if (raw === null || typeof raw !== 'object') return raw;
  const node = raw as Record<string, unknown>;
  if (node.type === 'AND' || node.type === 'OR')
    return Array.isArray(node.values)
      ? { ...node, values: node.values.map((item) => eventByDefault(item, depth + 1)) }
      : node;
  return node.type === undefined || node.type === null ? { ...node, type: 'event' } : node;
}

async function personIdParam(context: ViewContext, raw: RawParams): Promise<number | undefined> {
  const text = stringParam(raw, 'person_id');
  if (text === undefined) return undefined;
  const ref = personRefOf(text);
  if (!ref) throw validationError('Must be a person id (an integer) or uuid.', 'person_id');
  if ('id' in ref) return ref.id;
  return (await findPersonRow(context.db, context.teamId, ref))?.id ?? -1;
}

function dateParam(context: ViewContext, raw: RawParams, key: 'after' | 'before'): Date | undefined {
  const text = stringParam(raw, key);
  if (text === undefined || (key === 'after' && text === 'all')) return undefined;
  return parseDate(text, context.timezone, context.now, key).value;
}

export async function parseEventListRequest(
  context: ViewContext,
  raw: RawParams,
  csv: boolean,
): Promise<EventListRequest> {
  const cursor = stringParam(raw, 'cursor');
  const limit = intParam(raw, 'limit', { min: 1 });
  const filter = await propertiesParam(context, {
    properties: (() => {
      const text = stringParam(raw, 'properties');
      if (text === undefined) return undefined;
      try {
        return eventByDefault(JSON.parse(text));
      } catch {
        return text;
      }
    })(),
  });
  return {
    event: stringParam(raw, 'event'),
    distinctId: stringParam(raw, 'distinct_id'),
    personId: await personIdParam(context, raw),
    filter,
    after: dateParam(context, raw, 'after'),
    before: dateParam(context, raw, 'before'),
    cursor: cursor === undefined ? undefined : parseCursor(cursor),
    offset: intParam(raw, 'offset', { min: 0, max: MAX_OFFSET }) ?? 0,
    limit: csv ? Math.min(limit ?? CSV_DEFAULT_LIMIT, CSV_MAX_LIMIT) : Math.min(limit ?? DEFAULT_LIMIT, MAX_LIMIT),
  };
}
