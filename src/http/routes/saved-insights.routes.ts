// Saved insights of a project: the platform's `insights` resource (its aggregates, `insights/trend/`
// and the others, are static paths beside `insights/:id/` in insights.routes.ts).
import { Type } from 'typebox';
import {
  CreateInsightBody,
  InsightListQuery,
  InsightParams,
  SavedInsight,
  UpdateInsightBody,
} from '../../modules/insights/insights.schemas.ts';
import {
  createInsight,
  deleteInsight,
  getInsight,
  listInsights,
  updateInsight,
} from '../../modules/insights/insights.service.ts';
import { errorResponses, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'insights';
const NO_INSIGHT = 'no such insight in the project';
const BAD_INSIGHT = '`filters` not a JSON object or over 100 000 characters as JSON; a name over 400 characters';
const read = { access: { scopes: ['insight:read'], project: 'project_id' } };
const write = { access: { scopes: ['insight:write'], project: 'project_id' } };

export const savedInsightRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/insights';

  app.get(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List saved insights',
          description: "The project's saved insights, most recently changed first.",
          returns: 'A page of saved insights',
          paging: true,
        }),
        params: ProjectParams,
        querystring: InsightListQuery,
        response: { 200: Page(SavedInsight), ...errorResponses },
      },
      config: read,
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) =>
        listInsights(deps, {
          project: projectAccessOf(request).project,
          search: request.query.search,
          shortId: request.query.short_id,
          page,
        }),
      ),
  );

  app.post(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Save an insight',
          description:
            'Saves a name, a description and the filters that draw the insight (as the insight endpoints take them); it gets an id and a short id. Logged in the activity log.',
          returns: 'The saved insight',
          errors: { 400: BAD_INSIGHT },
        }),
        params: ProjectParams,
        body: CreateInsightBody,
        response: { 201: SavedInsight, ...errorResponses },
      },
      config: write,
    },
    async (request, reply) => {
      const insight = await createInsight(deps, actorOf(request), {
        ...request.body,
        project: projectAccessOf(request).project,
      });
      return reply.code(201).send(insight);
    },
  );

  app.get(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve a saved insight',
          description: 'One saved insight of the project.',
          returns: 'The saved insight',
          errors: { 404: NO_INSIGHT },
        }),
        params: InsightParams,
        response: { 200: SavedInsight, ...errorResponses },
      },
      config: read,
    },
    async (request) => getInsight(deps, { project: projectAccessOf(request).project, id: request.params.id }),
  );

  app.patch(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Update a saved insight',
          description:
            'Changes the fields given (a change of name, description or filters moves `last_modified_at` and is logged); `{"deleted": true}` deletes it and answers it as it was.',
          returns: 'The saved insight',
          errors: { 400: BAD_INSIGHT, 404: NO_INSIGHT },
        }),
        params: InsightParams,
        body: UpdateInsightBody,
        response: { 200: SavedInsight, ...errorResponses },
      },
      config: write,
    },
    async (request) =>
      updateInsight(deps, actorOf(request), {
        ...request.body,
        project: projectAccessOf(request).project,
        id: request.params.id,
      }),
  );

  app.delete(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete a saved insight',
          description:
            'Deletes it for good (the platform answers 405 here and deletes with `PATCH {"deleted": true}`, which herd takes too). Logged in the activity log.',
          returns: 'Deleted; no body',
          errors: { 404: NO_INSIGHT },
        }),
        params: InsightParams,
        response: { 204: Type.Null({ description: 'No body' }), ...errorResponses },
      },
      config: write,
    },
    async (request, reply) => {
      await deleteInsight(deps, actorOf(request), { project: projectAccessOf(request).project, id: request.params.id });
      return reply.code(204).send(null);
    },
  );
};
