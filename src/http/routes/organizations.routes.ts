import type { OrganizationRow } from '../../db/schema.ts';
import { OWNER_LEVEL } from '../../modules/access/access.service.ts';
import { listOrganizationsOfUser } from '../../modules/organizations/organizations.repository.ts';
import { createOrganization } from '../../modules/organizations/organizations.service.ts';
import { CreateOrganizationBody, Organization, OrganizationParams } from '../../modules/organizations/organizations.schemas.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { actorOf, organizationAccessOf } from '../plugins/access.ts';
import { errorResponses, Page, PageQuery } from '../schemas/common.ts';
import { iso } from '../serializers.ts';
import type { RouteModule } from './index.ts';

const serialize = (organization: OrganizationRow, level: number) => ({
  id: organization.id,
  name: organization.name,
  created_at: iso(organization.created_at),
  updated_at: iso(organization.updated_at),
  membership_level: level,
});

export const organizationRoutes: RouteModule = (app, deps) => {
  const tags = ['organizations'];

  app.get('/api/organizations/', {
    schema: { tags, querystring: PageQuery, response: { 200: Page(Organization), ...errorResponses } },
    config: { access: { scopes: ['organization:read'] } },
  }, async (request) => {
    const actor = actorOf(request);
    const page = pageOf(request.query);
    const { count, rows } = await listOrganizationsOfUser(deps.db, actor.user.id, page, actor.key.scoped_organizations);
    return pageEnvelope(request, deps.config.siteUrl, page, count, rows.map((row) => serialize(row, row.level)));
  });

  app.post('/api/organizations/', {
    schema: { tags, body: CreateOrganizationBody, response: { 201: Organization, ...errorResponses } },
    config: { access: { scopes: ['organization:write'] } },
  }, async (request, reply) => {
    const actor = actorOf(request);
    const organization = await createOrganization(deps.db, { name: request.body.name.trim(), ownerId: actor.user.id }, deps.clock.now());
    return reply.code(201).send(serialize(organization, OWNER_LEVEL));
  });

  app.get('/api/organizations/:id/', {
    schema: { tags, params: OrganizationParams, response: { 200: Organization, ...errorResponses } },
    config: { access: { scopes: ['organization:read'], organization: 'id' } },
  }, async (request) => {
    const { organization, membership } = organizationAccessOf(request);
    return serialize(organization, membership.level);
  });
};

