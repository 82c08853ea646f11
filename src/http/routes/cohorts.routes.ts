// Cohorts of a project: static (a member list) or dynamic (a property filter over persons).
import { Type } from 'typebox';
import { Cohort, CohortParams, CreateCohortBody, UpdateCohortBody } from '../../modules/cohorts/cohorts.schemas.ts';
import { createCohort, deleteCohort, getCohort, listCohorts, updateCohort } from '../../modules/cohorts/cohorts.service.ts';
import { errorResponses, Page, PageQuery, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import type { RouteModule } from '../route-module.ts';

const tags = ['cohorts'];
// A cohort answers its count (a scan of the persons for a dynamic one), and a static cohort made
// from a filter is filled by one: every route but delete is heavy.
const read = { access: { scopes: ['cohort:read'], project: 'project_id' }, heavy: 'scan' as const };
const write = { access: { scopes: ['cohort:write'], project: 'project_id' }, heavy: 'scan' as const };

export const cohortRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/cohorts';

  app.get(`${base}/`, {
    schema: { tags, params: ProjectParams, querystring: PageQuery, response: { 200: Page(Cohort), ...errorResponses } },
    config: read,
  }, async (request) => listPage(request, deps.config.siteUrl, (page) => listCohorts(deps, { project: projectAccessOf(request).project, page })));

  app.post(`${base}/`, {
    schema: { tags, params: ProjectParams, body: CreateCohortBody, response: { 201: Cohort, ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    const cohort = await createCohort(deps, actorOf(request), { ...request.body, project: projectAccessOf(request).project });
    return reply.code(201).send(cohort);
  });

  app.get(`${base}/:id/`, {
    schema: { tags, params: CohortParams, response: { 200: Cohort, ...errorResponses } },
    config: read,
  }, async (request) => getCohort(deps, { project: projectAccessOf(request).project, id: request.params.id }));

  app.patch(`${base}/:id/`, {
    schema: { tags, params: CohortParams, body: UpdateCohortBody, response: { 200: Cohort, ...errorResponses } },
    config: write,
  }, async (request) => updateCohort(deps, { ...request.body, project: projectAccessOf(request).project, id: request.params.id }));

  app.delete(`${base}/:id/`, {
    schema: { tags, params: CohortParams, response: { 204: Type.Null({ description: 'No body' }), ...errorResponses } },
    config: { access: write.access },
  }, async (request, reply) => {
    await deleteCohort(deps, { project: projectAccessOf(request).project, id: request.params.id });
    return reply.code(204).send(null);
  });
};
