// Person views: activity (all persons and one), property values, a person's cohorts, and the
// properties timeline.
import { Type } from 'typebox';
import { PersonCohort } from '../../modules/cohorts/cohorts.schemas.ts';
import { getPropertiesTimeline, listPersonActivityPage, listPersonCohorts, listPropertyValues } from '../../modules/persons/person-views.service.ts';
import { ActivityEntry, ActivityQuery, PersonCohortsQuery, PersonParams, TimelineQuery, ValueItem, ValuesQuery } from '../../modules/persons/persons.schemas.ts';
import { wantsCsv } from '../../wire/csv.ts';
import { errorResponses, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { respond } from '../route-helpers.ts';
import type { RouteModule } from '../route-module.ts';

const tags = ['persons'];
const activityAccess = { access: { scopes: ['activity_log:read'], project: 'project_id' } };
const read = { access: { scopes: ['person:read'], project: 'project_id' } };

export const personViewRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/persons';

  for (const url of [`${base}/activity/`, `${base}/:id/activity/`]) {
    app.get(url, {
      schema: { tags, params: url.includes(':id') ? PersonParams : ProjectParams, querystring: ActivityQuery, response: { 200: Page(ActivityEntry), ...errorResponses } },
      config: activityAccess,
    }, async (request, reply) => {
      const csv = wantsCsv(request);
      const { id } = request.params as { id?: string };
      const envelope = await listPage(request, deps.config.siteUrl, (page) => listPersonActivityPage(deps, { project: projectAccessOf(request).project, page, id }));
      return respond(reply, csv, envelope, envelope.results);
    });
  }

  app.get(`${base}/values/`, {
    schema: { tags, params: ProjectParams, querystring: ValuesQuery, response: { 200: Type.Array(ValueItem), ...errorResponses } },
    // The values of a property key come from a scan of the project's persons.
    config: { ...read, heavy: 'scan' },
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const values = await listPropertyValues(deps, { project: projectAccessOf(request).project, key: request.query.key, value: request.query.value });
    return respond(reply, csv, values, values);
  });

  app.get(`${base}/cohorts/`, {
    schema: { tags, params: ProjectParams, querystring: PersonCohortsQuery, response: { 200: Type.Object({ results: Type.Array(PersonCohort) }), ...errorResponses } },
    // Every dynamic cohort holding the person is counted: a scan per cohort.
    config: { access: { scopes: ['person:read', 'cohort:read'], project: 'project_id' }, heavy: 'scan' },
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const results = await listPersonCohorts(deps, { project: projectAccessOf(request).project, personId: request.query.person_id });
    return respond(reply, csv, { results }, results);
  });

  app.get(`${base}/:id/properties_timeline/`, {
    schema: { tags, params: PersonParams, querystring: TimelineQuery, response: errorResponses },
    config: read,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const timeline = await getPropertiesTimeline(deps, { project: projectAccessOf(request).project, id: request.params.id, query: request.query });
    return respond(reply, csv, timeline, timeline.points);
  });
};
