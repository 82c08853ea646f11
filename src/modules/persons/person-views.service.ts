// Read-only views of a project's persons: their activity log, the common values of a property, the
// cohorts holding a person, and a person's properties over time.
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { notFound, requiredError, validationError } from '../../errors.ts';
import { isGroup, parsePropertyFilter, type FilterNode } from '../../filters/property-filter.ts';
import { isDateOnly, parseUtcDate } from '../../utc-date.ts';
import type { PageRequest } from '../../wire/page.ts';
import { listCohortsHolding } from '../cohorts/cohorts.service.ts';
import type { PersonCohortWire } from '../cohorts/cohorts.schemas.ts';
import { listPersonActivity, type PersonActivityEntry } from './person-activity.repository.ts';
import { parsePersonRef } from './person-ref.ts';
import {
  firstEventTime,
  propertiesTimeline,
  topPropertyValues,
  type TimelinePoint,
} from './person-views.repository.ts';
import { findPersonRow } from './persons.repository.ts';
import type { TimelineQueryInput } from './persons.schemas.ts';
import { requirePerson } from './persons.service.ts';

/** The activity of the project's persons, or of the one named by `id`, newest first. */
export async function listPersonActivityPage(
  deps: Deps,
  input: { project: TeamRow; page: PageRequest; id?: string },
): Promise<{ count: number; results: PersonActivityEntry[] }> {
  const { project } = input;
  const itemId = input.id === undefined ? undefined : String((await requirePerson(deps.db, project, input.id)).id);
  return listPersonActivity(
    deps.db,
    { organizationId: project.organization_id, teamId: project.id, itemId },
    input.page,
  );
}

/** The most common values of a property; as the platform: no key, no values. */
export async function listPropertyValues(
  deps: Deps,
  input: { project: TeamRow; key?: string; value?: string },
): Promise<{ name: unknown; count: number }[]> {
  return input.key ? topPropertyValues(deps.db, input.project.id, input.key, input.value) : [];
}

/** The cohorts holding the person named by `personId` (an id or uuid). */
export async function listPersonCohorts(
  deps: Deps,
  input: { project: TeamRow; personId?: string },
): Promise<PersonCohortWire[]> {
  const raw = input.personId;
  if (raw === undefined || raw === '') throw requiredError('person_id');
  const person = await findPersonRow(deps.db, input.project.id, parsePersonRef(raw, 'person_id'));
  if (!person) throw notFound();
  return listCohortsHolding(deps, { project: input.project, personId: person.id });
}

const DAY_MS = 86_400_000;
const RELATIVE = /^-(\d+)([hdwmy])$/;
const UNIT_MS: Record<string, number> = { h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS, m: 30 * DAY_MS, y: 365 * DAY_MS };

/** An ISO date or date-time, or a relative `-7d` style offset; a date-only `date_to` means the end of that day. */
function parseDate(raw: string | undefined, attr: string, now: Date): Date | null {
  if (raw === undefined || raw === '' || raw === 'all') return null;
  const relative = RELATIVE.exec(raw);
  const dateOnly = isDateOnly(raw);
  const parsed = relative ? new Date(now.getTime() - Number(relative[1]) * UNIT_MS[relative[2]]) : parseUtcDate(raw);
  const year = parsed.getUTCFullYear();
  // Only years the database stores, so the query never fails on the value.
  if (!(year >= 1 && year <= 9999)) throw validationError(`"${raw}" is not a valid date.`, attr);
  return dateOnly && attr === 'date_to' ? new Date(parsed.getTime() + DAY_MS - 1) : parsed;
}

function eventNamesOf(raw: string | undefined): string[] {
  if (raw === undefined || raw === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationError('Events must be a JSON list.', 'events');
  }
  if (!Array.isArray(parsed)) throw validationError('Events must be a JSON list.', 'events');
  return parsed.map((entity) => {
    const name =
      typeof entity === 'string'
        ? entity
        : ((entity as { id?: unknown; name?: unknown } | null)?.id ?? (entity as { name?: unknown } | null)?.name);
    if (typeof name !== 'string') throw validationError('Each event needs an id (the event name).', 'events');
    return name;
  });
}

function personKeysOf(node: FilterNode, keys: Set<string>) {
  if (isGroup(node)) for (const child of node.values) personKeysOf(child, keys);
  else if (node.type === 'person' || node.type === undefined) keys.add(node.key);
}

export interface PropertiesTimeline {
  points: TimelinePoint[];
  crucial_property_keys: string[];
  effective_date_from: string;
  effective_date_to: string;
}

/** The person's properties at its first event in the range and wherever a crucial property (of the filter or breakdown) changed. */
export async function getPropertiesTimeline(
  deps: Deps,
  input: { project: TeamRow; id: string; query: TimelineQueryInput },
): Promise<PropertiesTimeline> {
  const { project, query } = input;
  const now = deps.clock.now();
  const eventNames = eventNamesOf(query.events);
  const keys = new Set<string>();
  if (query.properties !== undefined && query.properties !== '')
    personKeysOf(parsePropertyFilter(query.properties), keys);
  if (query.breakdown && (query.breakdown_type ?? 'event') === 'person') keys.add(query.breakdown);
  const crucialKeys = [...keys].sort();
  const person = await requirePerson(deps.db, project, input.id);
  const to = parseDate(query.date_to, 'date_to', now) ?? now;
  let from =
    parseDate(query.date_from, 'date_from', now) ?? (await firstEventTime(deps.db, project.id, person.id)) ?? to;
  if (from.getTime() > to.getTime()) from = to;
  // Equal bounds are widened by one interval (a day), as the platform does.
  const effectiveTo = from.getTime() === to.getTime() ? new Date(from.getTime() + DAY_MS - 1) : to;
  const points = await propertiesTimeline(deps.db, {
    teamId: project.id,
    personId: person.id,
    from,
    to: effectiveTo,
    eventNames,
    crucialKeys,
  });
  return {
    points,
    crucial_property_keys: crucialKeys,
    effective_date_from: from.toISOString(),
    effective_date_to: effectiveTo.toISOString(),
  };
}
