// Projects: the caller's list, creation in an organization the caller administers, retrieve.
import {
  CreateProjectBody,
  MAX_RETENTION_DAYS,
  Project,
  ProjectIdParams,
  UpdateProjectBody,
} from '../../modules/projects/projects.schemas.ts';
import {
  createProject,
  listProjectsPage,
  serializeProject,
  updateProject,
} from '../../modules/projects/projects.service.ts';
import { errorResponses, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

export const projectRoutes: RouteModule = (app, deps) => {
  const tag = 'projects';
  const base = '/api/projects';

  app.get(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List your projects',
          description: "The projects of every organization the key's user belongs to (within the key's limits).",
          returns: 'A page of projects',
          paging: true,
        }),
        querystring: PageQuery,
        response: { 200: Page(Project), ...errorResponses },
      },
      config: { access: { scopes: ['project:read'] } },
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) => listProjectsPage(deps, actorOf(request), { page })),
  );

  app.post(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Create a project',
          description:
            "A new project, with its own project token (`api_token`), in `organization_id` (default the key's user's first organization). The caller must be an admin or owner of that organization.",
          returns: 'The project',
          errors: { 400: 'an `organization_id` that does not exist', 403: 'not an admin or owner of the organization' },
        }),
        body: CreateProjectBody,
        response: { 201: Project, ...errorResponses },
      },
      config: { access: { scopes: ['project:write'] } },
    },
    async (request, reply) => {
      const project = await createProject(deps, actorOf(request), {
        name: request.body.name,
        organizationId: request.body.organization_id,
      });
      return reply.code(201).send(project);
    },
  );

  // The project is what the access check found.
  app.get(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve a project',
          description: "One project of the key's user's organizations, with its project token.",
          returns: 'The project',
          errors: { 403: 'a project of an organization the user does not belong to', 404: 'an unknown id' },
        }),
        params: ProjectIdParams,
        response: { 200: Project, ...errorResponses },
      },
      config: { access: { scopes: ['project:read'], project: 'id' } },
    },
    async (request) => serializeProject(projectAccessOf(request).project),
  );

  app.patch(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Update a project',
          description:
            "Changes its `name` or `data_retention_days` (how long events are kept: the deletion batch, on `DELETION_SCHEDULE`, deletes the project's events older than that; null keeps them forever). Each change is recorded in the activity log (scope `Project`).",
          returns: 'The project',
          errors: {
            400: `a blank \`name\`; \`data_retention_days\` not an integer from 1 to ${MAX_RETENTION_DAYS} or null`,
            403: 'not an admin or owner of the organization',
            404: 'an unknown id',
          },
        }),
        params: ProjectIdParams,
        body: UpdateProjectBody,
        response: { 200: Project, ...errorResponses },
      },
      config: { access: { scopes: ['project:write'], project: 'id', adminWrites: true } },
    },
    async (request) =>
      updateProject(deps, actorOf(request), { project: projectAccessOf(request).project, body: request.body }),
  );
};
