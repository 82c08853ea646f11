// Person views: activity (all persons and one), property values, a person's cohorts, and the
// properties timeline.
import { isGroup, parsePropertyFilter, type FilterNode } from '../../analytics/property-filter.ts';
import { notFound, requiredError, validationError } from '../../errors.ts';
import { listCohortsOfTeam } from '../../modules/cohorts/cohorts.repository.ts';
import { cohortContains, countCohort } from '../../modules/cohorts/cohorts.service.ts';
import { listPersonActivity } from '../../modules/persons/person-activity.repository.ts';
import { parsePersonRef } from '../../modules/persons/person-ref.ts';
import { firstEventTime, propertiesTimeline, topPropertyValues } from '../../modules/persons/person-views.repository.ts';
import { findPersonRow } from '../../modules/persons/persons.repository.ts';
import {
  ActivityEntry,
  BoundedPageQuery,
  FormatQuery,
  PersonCohort,
  PersonCohortsQuery,
  PersonParams,
  ProjectParams,
  TimelineQuery,
  ValueItem,
  ValuesQuery,
} from '../../modules/persons/persons.schemas.ts';
import { isDateOnly, parseUtcDate } from '../../utc-date.ts';
import { wantsCsv } from '../csv.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { errorResponses, Page } from '../schemas/common.ts';
import { Type } from 'typebox';
import type { RouteModule } from './index.ts';
import { personOf, respond } from './persons.routes.ts';

const tags = ['persons'];
const ActivityQuery = Type.Object({ ...BoundedPageQuery.properties, ...FormatQuery.properties });
const activityAccess = { access: { scopes: ['activity_log:read'], project: 'project_id' } };
const read = { access: { scopes: ['person:read'], project: 'project_id' } };

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
    const name = typeof entity === 'string' ? entity : (entity as { id?: unknown; name?: unknown } | null)?.id ?? (entity as { name?: unknown } | null)?.name;
    if (typeof name !== 'string') throw validationError('Each event needs an id (the event name).', 'events');
    return name;
  });
}

function personKeysOf(node: FilterNode, keys: Set<string>) {
  if (isGroup(node)) for (const child of node.values) personKeysOf(child, keys);
  else if (node.type === 'person' || node.type === undefined) keys.add(node.key);
}

export const personViewRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/persons';

  app.get(`${base}/activity/`, {
    schema: { tags, params: ProjectParams, querystring: ActivityQuery, response: { 200: Page(ActivityEntry), ...errorResponses } },
    config: activityAccess,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { project } = projectAccessOf(request);
    const page = pageOf(request.query);
    const { count, results } = await listPersonActivity(deps.db, { organizationId: project.organization_id, teamId: project.id }, page);
    return respond(reply, csv, pageEnvelope(request, deps.config.siteUrl, page, count, results), results);
  });

  app.get(`${base}/:id/activity/`, {
    schema: { tags, params: PersonParams, querystring: ActivityQuery, response: { 200: Page(ActivityEntry), ...errorResponses } },
    config: activityAccess,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { project } = projectAccessOf(request);
    const person = await personOf(deps, request);
    const page = pageOf(request.query);
    const scope = { organizationId: project.organization_id, teamId: project.id, itemId: String(person.id) };
    const { count, results } = await listPersonActivity(deps.db, scope, page);
    return respond(reply, csv, pageEnvelope(request, deps.config.siteUrl, page, count, results), results);
  });

  app.get(`${base}/values/`, {
    schema: { tags, params: ProjectParams, querystring: ValuesQuery, response: { 200: Type.Array(ValueItem), ...errorResponses } },
    config: read,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { key, value } = request.query;
    // As the platform: no key, no values.
    const values = key ? await topPropertyValues(deps.db, projectAccessOf(request).project.id, key, value) : [];
    return respond(reply, csv, values, values);
  });

  app.get(`${base}/cohorts/`, {
    schema: { tags, params: ProjectParams, querystring: PersonCohortsQuery, response: { 200: Type.Object({ results: Type.Array(PersonCohort) }), ...errorResponses } },
    config: { access: { scopes: ['person:read', 'cohort:read'], project: 'project_id' } },
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const raw = request.query.person_id;
    if (raw === undefined || raw === '') throw requiredError('person_id');
    const { project } = projectAccessOf(request);
    const person = await findPersonRow(deps.db, project.id, parsePersonRef(raw, 'person_id'));
    if (!person) throw notFound();
    const results = [];
    for (const cohort of await listCohortsOfTeam(deps.db, project.id)) {
      if (!(await cohortContains(deps.db, cohort, person.id))) continue;
      results.push({ id: cohort.id, name: cohort.name, count: await countCohort(deps.db, cohort), is_static: cohort.is_static, created_at: cohort.created_at.toISOString() });
    }
    return respond(reply, csv, { results }, results);
  });

  app.get(`${base}/:id/properties_timeline/`, {
    schema: { tags, params: PersonParams, querystring: TimelineQuery, response: errorResponses },
    config: read,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { project } = projectAccessOf(request);
    const query = request.query;
    const now = deps.clock.now();
    const eventNames = eventNamesOf(query.events);
    const keys = new Set<string>();
    if (query.properties !== undefined && query.properties !== '') personKeysOf(parsePropertyFilter(query.properties), keys);
    if (query.breakdown && (query.breakdown_type ?? 'event') === 'person') keys.add(query.breakdown);
    const crucialKeys = [...keys].sort();
    const person = await personOf(deps, request);
    const to = parseDate(query.date_to, 'date_to', now) ?? now;
    let from = parseDate(query.date_from, 'date_from', now) ?? (await firstEventTime(deps.db, project.id, person.id)) ?? to;
    if (from.getTime() > to.getTime()) from = to;
    // Equal bounds are widened by one interval (a day), as the platform does.
    const effectiveTo = from.getTime() === to.getTime() ? new Date(from.getTime() + DAY_MS - 1) : to;
    const points = await propertiesTimeline(deps.db, { teamId: project.id, personId: person.id, from, to: effectiveTo, eventNames, crucialKeys });
    const body = { points, crucial_property_keys: crucialKeys, effective_date_from: from.toISOString(), effective_date_to: effectiveTo.toISOString() };
    return respond(reply, csv, body, points);
  });
};
