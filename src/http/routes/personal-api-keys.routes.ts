import { Type } from 'typebox';
import type { ApiKeyRow } from '../../db/schema.ts';
import { notFound } from '../../errors.ts';
import { deleteKeyOfUser, findKeyOfUser, listKeysOfUser } from '../../modules/api-keys/api-keys.repository.ts';
import { CreatePersonalApiKeyBody, PersonalApiKey, PersonalApiKeyParams } from '../../modules/api-keys/api-keys.schemas.ts';
import { createPersonalApiKey } from '../../modules/api-keys/api-keys.service.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { actorOf } from '../plugins/access.ts';
import { errorResponses, Page, PageQuery } from '../schemas/common.ts';
import { iso, isoOrNull } from '../serializers.ts';
import type { RouteModule } from './index.ts';

/** The raw value is shown once, in the answer to create; reads carry only the mask. */
const serialize = (key: ApiKeyRow, value: string | null = null) => ({
  id: key.id,
  label: key.label,
  value,
  mask_value: key.mask_value,
  created_at: iso(key.created_at),
  last_used_at: isoOrNull(key.last_used_at),
  user_id: key.user_id,
  scopes: key.scopes.length > 0 ? key.scopes : ['*'],
  scoped_organizations: key.scoped_organizations,
  scoped_teams: key.scoped_teams,
});

export const personalApiKeyRoutes: RouteModule = (app, deps) => {
  const tags = ['personal_api_keys'];
  const read = { scopes: ['personal_api_key:read'] };
  const write = { scopes: ['personal_api_key:write'] };

  app.get('/api/personal_api_keys/', {
    schema: { tags, querystring: PageQuery, response: { 200: Page(PersonalApiKey), ...errorResponses } },
    config: { access: read },
  }, async (request) => {
    const page = pageOf(request.query);
    const { count, rows } = await listKeysOfUser(deps.db, actorOf(request).user.id, page);
    return pageEnvelope(request, deps.config.siteUrl, page, count, rows.map((row) => serialize(row)));
  });

  app.post('/api/personal_api_keys/', {
    schema: { tags, body: CreatePersonalApiKeyBody, response: { 201: PersonalApiKey, ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    const { user, key } = actorOf(request);
    const body = request.body;
    const input = { userId: user.id, label: body.label, scopes: body.scopes, scopedOrganizations: body.scoped_organizations, scopedTeams: body.scoped_teams };
    const created = await createPersonalApiKey(deps.db, input, deps.clock.now(), key);
    return reply.code(201).send(serialize(created.row, created.value));
  });

  app.get('/api/personal_api_keys/:id/', {
    schema: { tags, params: PersonalApiKeyParams, response: { 200: PersonalApiKey, ...errorResponses } },
    config: { access: read },
  }, async (request) => {
    const row = await findKeyOfUser(deps.db, actorOf(request).user.id, request.params.id);
    if (!row) throw notFound();
    return serialize(row);
  });

  app.delete('/api/personal_api_keys/:id/', {
    schema: { tags, params: PersonalApiKeyParams, response: { 204: Type.Null(), ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    if (!(await deleteKeyOfUser(deps.db, actorOf(request).user.id, request.params.id))) throw notFound();
    return reply.code(204).send(null);
  });
};
