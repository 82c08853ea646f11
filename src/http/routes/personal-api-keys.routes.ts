// The caller's own personal API keys: list, create (the value shown once), retrieve, delete.
import { Type } from 'typebox';
import {
  CreatePersonalApiKeyBody,
  PersonalApiKey,
  PersonalApiKeyParams,
} from '../../modules/api-keys/api-keys.schemas.ts';
import {
  createPersonalApiKey,
  deletePersonalApiKey,
  getPersonalApiKey,
  listPersonalApiKeysPage,
} from '../../modules/api-keys/api-keys.service.ts';
import { errorResponses, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

export const personalApiKeyRoutes: RouteModule = (app, deps) => {
  const tag = 'personal_api_keys';
  const read = { scopes: ['personal_api_key:read'] };
  const write = { scopes: ['personal_api_key:write'] };

  app.get(
    '/api/personal_api_keys/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'List your personal API keys',
          description: "The key's user's own keys, with their masks (never their values).",
          returns: 'A page of personal API keys',
          paging: true,
        }),
        querystring: PageQuery,
        response: { 200: Page(PersonalApiKey), ...errorResponses },
      },
      config: { access: read },
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) => listPersonalApiKeysPage(deps, actorOf(request), { page })),
  );

  app.post(
    '/api/personal_api_keys/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Create a personal API key',
          description:
            "A new key for the key's user, answered once with its `value` (`phx_…`): store it, it is never shown again. It can be no broader than the key that creates it: each scope must be held by that key, and a limited key makes keys within its limits. At most 10 keys a user.",
          returns: 'The key, with its value',
          errors: {
            400: 'an unknown scope, a scope the creating key does not hold, limits beyond its own, or the 10 keys already there',
          },
        }),
        body: CreatePersonalApiKeyBody,
        response: { 201: PersonalApiKey, ...errorResponses },
      },
      config: { access: write },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      const body = request.body;
      const input = {
        userId: actor.user.id,
        label: body.label,
        scopes: body.scopes,
        scopedOrganizations: body.scoped_organizations,
        scopedTeams: body.scoped_teams,
      };
      const created = await createPersonalApiKey(deps, actor, input);
      return reply.code(201).send(created.key);
    },
  );

  app.get(
    '/api/personal_api_keys/:id/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve a personal API key',
          description: "One of the key's user's own keys, without its value.",
          returns: 'The key',
          errors: { 404: "an unknown id, or another user's key" },
        }),
        params: PersonalApiKeyParams,
        response: { 200: PersonalApiKey, ...errorResponses },
      },
      config: { access: read },
    },
    async (request) => getPersonalApiKey(deps, actorOf(request), { id: request.params.id }),
  );

  app.delete(
    '/api/personal_api_keys/:id/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete a personal API key',
          description:
            "Revokes one of the key's user's own keys at once (the key making the request may delete itself).",
          returns: 'Deleted; no body',
          errors: { 404: "an unknown id, or another user's key" },
        }),
        params: PersonalApiKeyParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
      config: { access: write },
    },
    async (request, reply) => {
      await deletePersonalApiKey(deps, actorOf(request), { id: request.params.id });
      return reply.code(204).send(null);
    },
  );
};
