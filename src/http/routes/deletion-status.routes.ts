// GET /api/projects/:project_id/persons/deletion_status/ — the project's queued event deletions.
import { listDeletionStatus } from '../../modules/deletions/deletion-status.service.ts';
import { DeletionStatusParams, DeletionStatusQuery, DeletionTask, statusFilterOf } from '../../modules/deletions/deletions.schemas.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { errorResponses, Page } from '../schemas/common.ts';
import type { RouteModule } from './index.ts';

export const deletionStatusRoutes: RouteModule = (app, deps) => {
  app.get('/api/projects/:project_id/persons/deletion_status/', {
    schema: {
      tags: ['persons'],
      params: DeletionStatusParams,
      querystring: DeletionStatusQuery,
      response: { 200: Page(DeletionTask), ...errorResponses },
    },
    config: { access: { scopes: ['person:read'], project: 'project_id' } },
  }, async (request) => {
    const filter = { status: statusFilterOf(request.query.status), personUuid: request.query.person_uuid };
    const { project } = projectAccessOf(request);
    const page = pageOf(request.query);
    const { count, results } = await listDeletionStatus(deps.db, project.id, filter, page);
    return pageEnvelope(request, deps.config.siteUrl, page, count, results);
  });
};
