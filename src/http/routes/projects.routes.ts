import type { TeamRow } from '../../db/schema.ts';
import { listProjectsOfUser } from '../../modules/projects/projects.repository.ts';
import { CreateProjectBody, Project, ProjectParams } from '../../modules/projects/projects.schemas.ts';
import { createProjectAs } from '../../modules/projects/projects.service.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { errorResponses, Page, PageQuery } from '../schemas/common.ts';
import { iso } from '../serializers.ts';
import type { RouteModule } from './index.ts';

const serialize = (project: TeamRow) => ({
  id: project.id,
  uuid: project.uuid,
  organization: project.organization_id,
  name: project.name,
  api_token: project.api_token,
  created_at: iso(project.created_at),
});

export const projectRoutes: RouteModule = (app, deps) => {
  const tags = ['projects'];

  app.get('/api/projects/', {
    schema: { tags, querystring: PageQuery, response: { 200: Page(Project), ...errorResponses } },
    config: { access: { scopes: ['project:read'] } },
  }, async (request) => {
    const { user, key } = actorOf(request);
    const page = pageOf(request.query);
    const restrictions = { organizations: key.scoped_organizations, teams: key.scoped_teams };
    const { count, rows } = await listProjectsOfUser(deps.db, user.id, page, restrictions);
    return pageEnvelope(request, deps.config.siteUrl, page, count, rows.map(serialize));
  });

  app.post('/api/projects/', {
    schema: { tags, body: CreateProjectBody, response: { 201: Project, ...errorResponses } },
    config: { access: { scopes: ['project:write'] } },
  }, async (request, reply) => {
    const project = await createProjectAs(deps, actorOf(request), { name: request.body.name, organizationId: request.body.organization_id });
    return reply.code(201).send(serialize(project));
  });

  app.get('/api/projects/:id/', {
    schema: { tags, params: ProjectParams, response: { 200: Project, ...errorResponses } },
    config: { access: { scopes: ['project:read'], project: 'id' } },
  }, async (request) => serialize(projectAccessOf(request).project));
};
