// GET /api/projects/:project_id/persons/deletion_status/ — the project's queued event deletions.
import { listDeletionStatus } from '../../modules/deletions/deletion-status.service.ts';
import { DeletionStatusQuery, DeletionTask, statusFilterOf } from '../../modules/deletions/deletions.schemas.ts';
import { errorResponses, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

export const deletionStatusRoutes: RouteModule = (app, deps) => {
  app.get(
    '/api/projects/:project_id/persons/deletion_status/',
    {
      schema: {
        ...describe({
          tag: 'persons',
          summary: 'List queued event deletions',
          description:
            'The event deletions asked for with `delete_events=true` (on a person delete or a bulk delete), newest first: pending until the weekly batch (Sunday 05:00 UTC by default, `DELETION_SCHEDULE`) has deleted the events, then completed.',
          returns: 'A page of deletion tasks',
          paging: true,
          errors: {
            400: '`status` other than `pending`, `completed` or `all` (`invalid_choice`); `person_uuid` not a uuid',
          },
        }),
        params: ProjectParams,
        querystring: DeletionStatusQuery,
        response: { 200: Page(DeletionTask), ...errorResponses },
      },
      config: { access: { scopes: ['person:read'], project: 'project_id' } },
    },
    async (request) => {
      const filter = { status: statusFilterOf(request.query.status), personUuid: request.query.person_uuid };
      return listPage(request, deps.config.siteUrl, (page) =>
        listDeletionStatus(deps, { project: projectAccessOf(request).project, filter, page }),
      );
    },
  );
};
