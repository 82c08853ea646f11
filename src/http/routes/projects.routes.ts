// Projects: the caller's list, creation in an organization the caller administers, retrieve.
import { CreateProjectBody, Project, ProjectIdParams } from '../../modules/projects/projects.schemas.ts';
import { createProject, listProjectsPage, serializeProject } from '../../modules/projects/projects.service.ts';
import { errorResponses, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import type { RouteModule } from '../route-module.ts';

export const projectRoutes: RouteModule = (app, deps) => {
  const tags = ['projects'];
  const base = '/api/projects';

  app.get(`${base}/`, {
    schema: { tags, querystring: PageQuery, response: { 200: Page(Project), ...errorResponses } },
    config: { access: { scopes: ['project:read'] } },
  }, async (request) => listPage(request, deps.config.siteUrl, (page) => listProjectsPage(deps, actorOf(request), { page })));

  app.post(`${base}/`, {
    schema: { tags, body: CreateProjectBody, response: { 201: Project, ...errorResponses } },
    config: { access: { scopes: ['project:write'] } },
  }, async (request, reply) => {
    const project = await createProject(deps, actorOf(request), { name: request.body.name, organizationId: request.body.organization_id });
    return reply.code(201).send(project);
  });

  // The project is what the access check found.
  app.get(`${base}/:id/`, {
    schema: { tags, params: ProjectIdParams, response: { 200: Project, ...errorResponses } },
    config: { access: { scopes: ['project:read'], project: 'id' } },
  }, async (request) => serializeProject(projectAccessOf(request).project));
};
