// POST /api/projects/:project_id/query/ (and the platform's newer /api/environments/ alias): HogQL
// and EventsQuery over this project's events and persons, under the analytical limits.
import { runQuery } from '../../query/query.service.ts';
import { QueryBody, QueryResponse } from '../../query/query.schemas.ts';
import { errorResponses, ProjectParams } from '../../wire/schemas.ts';
import { describe } from '../route-docs.ts';
import { emptyBodyAsObject } from '../route-helpers.ts';
import { projectAccessOf } from '../plugins/access.ts';
import type { RouteModule } from '../route-module.ts';

const DESCRIPTION =
  "Runs one read-only query over this project's `events`, `persons` and `person_distinct_ids` (docs/query.md). " +
  '`HogQLQuery`: `{"kind": "HogQLQuery", "query": "select event, count() from events group by event", "values": {…}}`, `{name}` placeholders filled from `values` as bound values. ' +
  'Without a LIMIT the answer holds 100 rows and `hasMore` says whether there are more; a LIMIT is honoured up to 50 000. ' +
  "Every table reference reads this project's rows only; no other table, schema or database function is reachable.";

export const queryRoutes: RouteModule = (app, deps) => {
  app.addSchema(QueryResponse);
  const config = {
    access: { scopes: ['query:read'], project: 'project_id', tier: 'analytics' as const },
    heavy: 'analytics' as const,
  };
  for (const prefix of ['projects', 'environments']) {
    app.post(
      `/api/${prefix}/:project_id/query/`,
      {
        schema: {
          ...describe({
            tag: 'query',
            summary: prefix === 'projects' ? 'Run a query' : 'Run a query (environments alias)',
            description:
              prefix === 'projects'
                ? DESCRIPTION
                : `The same as \`POST /api/projects/:project_id/query/\`. ${DESCRIPTION}`,
            returns: 'The rows',
            paging: 'none: one answer; without a LIMIT 100 rows and `hasMore`, a LIMIT up to 50 000 rows.',
            errors: {
              400: 'no `query`, an unknown `kind`, a HogQL text that does not parse or names an unknown table, field, function or placeholder (`detail` gives the line and column and what it could be), or a query PostgreSQL refuses (a safe message, never its text)',
            },
            body: QueryBody,
          }),
          params: ProjectParams,
          response: { 200: { $ref: 'QueryResponse#' }, ...errorResponses },
        },
        preValidation: emptyBodyAsObject,
        config,
      },
      async (request) => {
        const { project } = projectAccessOf(request);
        return runQuery(
          { db: deps.db, teamId: project.id, timezone: project.timezone, now: deps.clock.now() },
          request.body,
        );
      },
    );
  }
};
