// The caller's own personal API keys: list, create (the value shown once), retrieve, delete.
import { Type } from 'typebox';
import { CreatePersonalApiKeyBody, PersonalApiKey, PersonalApiKeyParams } from '../../modules/api-keys/api-keys.schemas.ts';
import { createPersonalApiKey, deletePersonalApiKey, getPersonalApiKey, listPersonalApiKeysPage } from '../../modules/api-keys/api-keys.service.ts';
import { errorResponses, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf } from '../plugins/access.ts';
import type { RouteModule } from '../route-module.ts';

export const personalApiKeyRoutes: RouteModule = (app, deps) => {
  const tags = ['personal_api_keys'];
  const read = { scopes: ['personal_api_key:read'] };
  const write = { scopes: ['personal_api_key:write'] };

  app.get('/api/personal_api_keys/', {
    schema: { tags, querystring: PageQuery, response: { 200: Page(PersonalApiKey), ...errorResponses } },
    config: { access: read },
  }, async (request) => listPage(request, deps.config.siteUrl, (page) => listPersonalApiKeysPage(deps, actorOf(request), { page })));

  app.post('/api/personal_api_keys/', {
    schema: { tags, body: CreatePersonalApiKeyBody, response: { 201: PersonalApiKey, ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    const actor = actorOf(request);
    const body = request.body;
    const input = { userId: actor.user.id, label: body.label, scopes: body.scopes, scopedOrganizations: body.scoped_organizations, scopedTeams: body.scoped_teams };
    const created = await createPersonalApiKey(deps, actor, input);
    return reply.code(201).send(created.key);
  });

  app.get('/api/personal_api_keys/:id/', {
    schema: { tags, params: PersonalApiKeyParams, response: { 200: PersonalApiKey, ...errorResponses } },
    config: { access: read },
  }, async (request) => getPersonalApiKey(deps, actorOf(request), { id: request.params.id }));

  app.delete('/api/personal_api_keys/:id/', {
    schema: { tags, params: PersonalApiKeyParams, response: { 204: Type.Null(), ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    await deletePersonalApiKey(deps, actorOf(request), { id: request.params.id });
    return reply.code(204).send(null);
  });
};
