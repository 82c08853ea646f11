// Person views: activity (all persons and one), property values, a person's cohorts, and the
// properties timeline.
import { Type } from 'typebox';
import { PersonCohort } from '../../modules/cohorts/cohorts.schemas.ts';
import {
  getPropertiesTimeline,
  listPersonActivityPage,
  listPersonCohorts,
  listPropertyValues,
} from '../../modules/persons/person-views.service.ts';
import {
  ActivityEntry,
  ActivityQuery,
  PersonCohortsQuery,
  PersonParams,
  PropertiesTimeline,
  TimelineQuery,
  ValueList,
  ValuesQuery,
} from '../../modules/persons/persons.schemas.ts';
import { wantsCsv } from '../../wire/csv.ts';
import { errorResponses, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { respond } from '../route-helpers.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'persons';

const PersonCohortList = Type.Object(
  { results: Type.Array(PersonCohort) },
  { title: 'PersonCohortList', description: 'The cohorts that hold a person.' },
);
const activityAccess = { access: { scopes: ['activity_log:read'], project: 'project_id' } };
const read = { access: { scopes: ['person:read'], project: 'project_id' } };

export const personViewRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/persons';

  for (const url of [`${base}/activity/`, `${base}/:id/activity/`]) {
    app.get(
      url,
      {
        schema: {
          ...describe({
            tag,
            summary: url.includes(':id') ? "A person's activity" : 'Activity of all persons',
            description: `Every change made to ${url.includes(':id') ? 'the person' : "the project's persons"} through the API (updated, property removed, split, deleted, bulk deleted) and by capture merges, newest first.`,
            returns: 'A page of activity entries',
            paging: true,
            csv:
              'activity,created_at,detail.changes.0.action,detail.changes.0.after,detail.changes.0.before,detail.changes.0.field,detail.changes.0.type,detail.name,id,item_id,scope,user.email,user.first_name\n' +
              'updated,2026-03-01T09:30:00.000Z,changed,team,pro,plan,Person,0190a1b2-5e6f-7a8b-9c0d-1e2f3a4b5c6d,0190a1b3-0000-7000-8000-000000000001,42,Person,ada@example.com,Ada\n',
          }),
          params: url.includes(':id') ? PersonParams : ProjectParams,
          querystring: ActivityQuery,
          response: { 200: Page(ActivityEntry), ...errorResponses },
        },
        config: activityAccess,
      },
      async (request, reply) => {
        const csv = wantsCsv(request);
        const { id } = request.params as { id?: string };
        const envelope = await listPage(request, deps.config.siteUrl, (page) =>
          listPersonActivityPage(deps, { project: projectAccessOf(request).project, page, id }),
        );
        return respond(reply, csv, envelope, envelope.results);
      },
    );
  }

  app.get(
    `${base}/values/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Values of a person property',
          description:
            'The most frequent values of the person property `key` (up to 20), by how many persons have them; `value` narrows them by substring. Different JSON types are different values.',
          returns: 'The values with their counts',
          paging: 'none: the answer is at most the 20 most frequent values; `limit` and `offset` are not read.',
          csv: 'count,name\n12,pro\n3,team\n',
        }),
        params: ProjectParams,
        querystring: ValuesQuery,
        response: { 200: ValueList, ...errorResponses },
      },
      // The values of a property key come from a scan of the project's persons.
      config: { ...read, heavy: 'scan' },
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const values = await listPropertyValues(deps, {
        project: projectAccessOf(request).project,
        key: request.query.key,
        value: request.query.value,
      });
      return respond(reply, csv, values, values);
    },
  );

  app.get(
    `${base}/cohorts/`,
    {
      schema: {
        ...describe({
          tag,
          summary: "A person's cohorts",
          description:
            'Every cohort of the project holding the person: the static ones listing it and the dynamic ones whose filter it matches now.',
          returns: 'The cohorts',
          paging: 'none: every cohort holding the person, in one answer.',
          csv: 'count,created_at,id,is_static,name\n40,2026-03-01T09:30:00.000Z,12,False,Paying\n',
          errors: { 400: '`person_id` missing', 404: 'no such person in the project' },
        }),
        params: ProjectParams,
        querystring: PersonCohortsQuery,
        response: { 200: PersonCohortList, ...errorResponses },
      },
      // Every dynamic cohort holding the person is counted: a scan per cohort.
      config: { access: { scopes: ['person:read', 'cohort:read'], project: 'project_id' }, heavy: 'scan' },
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const results = await listPersonCohorts(deps, {
        project: projectAccessOf(request).project,
        personId: request.query.person_id,
      });
      return respond(reply, csv, { results }, results);
    },
  );

  app.get(
    `${base}/:id/properties_timeline/`,
    {
      schema: {
        ...describe({
          tag,
          summary: "A person's properties timeline",
          description:
            "The person's properties over the range, as its events recorded them: a point at its first counted event, then one wherever a crucial property (a `person` key of `properties`, or the person `breakdown`) changed, each with how many events it covers.",
          returns: 'The timeline',
          csv: 'properties.email,properties.plan,relevant_event_count,timestamp\nada@example.com,free,3,2026-03-01T09:30:00.000Z\nada@example.com,pro,5,2026-03-02T14:00:00.000Z\n',
          errors: {
            400: 'a bad date, `events` not a JSON list, a malformed `properties`',
            404: 'no such person in the project',
          },
        }),
        params: PersonParams,
        querystring: TimelineQuery,
        response: { 200: PropertiesTimeline, ...errorResponses },
      },
      config: read,
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const timeline = await getPropertiesTimeline(deps, {
        project: projectAccessOf(request).project,
        id: request.params.id,
        query: request.query,
      });
      return respond(reply, csv, timeline, timeline.points);
    },
  );
};
