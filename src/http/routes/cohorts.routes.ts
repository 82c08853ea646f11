// Cohorts of a project: static (a member list) or dynamic (a property filter over persons).
import { notFound, validationError } from '../../errors.ts';
import { deleteCohortRow, findCohort, listCohorts } from '../../modules/cohorts/cohorts.repository.ts';
import { Cohort, CohortParams, CreateCohortBody, UpdateCohortBody } from '../../modules/cohorts/cohorts.schemas.ts';
import { createCohort, serializeCohort, updateCohort } from '../../modules/cohorts/cohorts.service.ts';
import { BoundedPageQuery, ProjectParams } from '../../modules/persons/persons.schemas.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { errorResponses, Page } from '../schemas/common.ts';
import { Type } from 'typebox';
import type { RouteModule } from './index.ts';

const tags = ['cohorts'];
const read = { access: { scopes: ['cohort:read'], project: 'project_id' } };
const write = { access: { scopes: ['cohort:write'], project: 'project_id' } };

const blankName = () => validationError('This field may not be blank.', 'name', 'blank');

export const cohortRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/cohorts';

  app.get(`${base}/`, {
    schema: { tags, params: ProjectParams, querystring: BoundedPageQuery, response: { 200: Page(Cohort), ...errorResponses } },
    config: read,
  }, async (request) => {
    const { project } = projectAccessOf(request);
    const page = pageOf(request.query);
    const { count, rows } = await listCohorts(deps.db, project.id, page);
    const results = [];
    for (const row of rows) results.push(await serializeCohort(deps.db, row));
    return pageEnvelope(request, deps.config.siteUrl, page, count, results);
  });

  app.post(`${base}/`, {
    schema: { tags, params: ProjectParams, body: CreateCohortBody, response: { 201: Cohort, ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    const { project } = projectAccessOf(request);
    const name = request.body.name.trim();
    if (name === '') throw blankName();
    const cohort = await createCohort(deps.db, project.id, { ...request.body, name }, actorOf(request).user.id, deps.clock.now());
    return reply.code(201).send(await serializeCohort(deps.db, cohort));
  });

  app.get(`${base}/:id/`, {
    schema: { tags, params: CohortParams, response: { 200: Cohort, ...errorResponses } },
    config: read,
  }, async (request) => {
    const cohort = await findCohort(deps.db, projectAccessOf(request).project.id, request.params.id);
    if (!cohort) throw notFound();
    return serializeCohort(deps.db, cohort);
  });

  app.patch(`${base}/:id/`, {
    schema: { tags, params: CohortParams, body: UpdateCohortBody, response: { 200: Cohort, ...errorResponses } },
    config: write,
  }, async (request) => {
    const cohort = await findCohort(deps.db, projectAccessOf(request).project.id, request.params.id);
    if (!cohort) throw notFound();
    const name = request.body.name?.trim();
    if (name === '') throw blankName();
    const updated = await updateCohort(deps.db, cohort, { ...request.body, name });
    return serializeCohort(deps.db, updated);
  });

  app.delete(`${base}/:id/`, {
    schema: { tags, params: CohortParams, response: { 204: Type.Null({ description: 'No body' }), ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    const deleted = await deleteCohortRow(deps.db, projectAccessOf(request).project.id, request.params.id);
    if (!deleted) throw notFound();
    return reply.code(204).send(null);
  });
};
