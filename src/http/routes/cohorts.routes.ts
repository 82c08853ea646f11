// Cohorts of a project: static (a member list) or dynamic (a property filter over persons).
import { Type } from 'typebox';
import { Cohort, CohortParams, CreateCohortBody, UpdateCohortBody } from '../../modules/cohorts/cohorts.schemas.ts';
import {
  createCohort,
  deleteCohort,
  getCohort,
  listCohorts,
  updateCohort,
} from '../../modules/cohorts/cohorts.service.ts';
import { errorResponses, Page, PageQuery, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'cohorts';
const NO_COHORT = 'no such cohort in the project';
const BAD_COHORT =
  'a blank name; a `filters` that is not `{"properties": <filter group>}`, names a cohort of another project or itself (a cycle); more than 10 000 `distinct_ids`';
// A cohort answers its count (a scan of the persons for a dynamic one), and a static cohort made
// from a filter is filled by one: every route but delete is heavy.
const read = { access: { scopes: ['cohort:read'], project: 'project_id' }, heavy: 'scan' as const };
const write = { access: { scopes: ['cohort:write'], project: 'project_id' }, heavy: 'scan' as const };

export const cohortRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/cohorts';

  app.get(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List cohorts',
          description: "The project's cohorts, newest first, each with how many persons it holds now.",
          returns: 'A page of cohorts',
          paging: true,
        }),
        params: ProjectParams,
        querystring: PageQuery,
        response: { 200: Page(Cohort), ...errorResponses },
      },
      config: read,
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) =>
        listCohorts(deps, { project: projectAccessOf(request).project, page }),
      ),
  );

  app.post(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Create a cohort',
          description:
            'A dynamic cohort (`filters`: whoever matches, evaluated at each use) or a static one (`is_static`: the persons of `distinct_ids`). Property filters name it as `{"key": "id", "type": "cohort", "value": <id>}`.',
          returns: 'The cohort',
          errors: { 400: BAD_COHORT },
        }),
        params: ProjectParams,
        body: CreateCohortBody,
        response: { 201: Cohort, ...errorResponses },
      },
      config: write,
    },
    async (request, reply) => {
      const cohort = await createCohort(deps, actorOf(request), {
        ...request.body,
        project: projectAccessOf(request).project,
      });
      return reply.code(201).send(cohort);
    },
  );

  app.get(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve a cohort',
          description: 'One cohort of the project, with how many persons it holds now.',
          returns: 'The cohort',
          errors: { 404: NO_COHORT },
        }),
        params: CohortParams,
        response: { 200: Cohort, ...errorResponses },
      },
      config: read,
    },
    async (request) => getCohort(deps, { project: projectAccessOf(request).project, id: request.params.id }),
  );

  app.patch(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Update a cohort',
          description:
            'Changes the fields given. Made static, a cohort keeps the persons it matched (or takes `distinct_ids`); made dynamic, it drops its list.',
          returns: 'The cohort',
          errors: { 400: BAD_COHORT, 404: NO_COHORT },
        }),
        params: CohortParams,
        body: UpdateCohortBody,
        response: { 200: Cohort, ...errorResponses },
      },
      config: write,
    },
    async (request) =>
      updateCohort(deps, { ...request.body, project: projectAccessOf(request).project, id: request.params.id }),
  );

  app.delete(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete a cohort',
          description:
            'Deletes the cohort and its member list. A request filtering on it afterwards is a 400 (`Cohort N does not exist.`); a dynamic cohort whose filter names it then holds nobody.',
          returns: 'Deleted; no body',
          errors: { 404: NO_COHORT },
        }),
        params: CohortParams,
        response: { 204: Type.Null({ description: 'No body' }), ...errorResponses },
      },
      config: { access: write.access },
    },
    async (request, reply) => {
      await deleteCohort(deps, { project: projectAccessOf(request).project, id: request.params.id });
      return reply.code(204).send(null);
    },
  );
};
