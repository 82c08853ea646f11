// Organizations: the caller's list, creation (the caller becomes owner), retrieve.
import {
  CreateOrganizationBody,
  Organization,
  OrganizationIdParams,
} from '../../modules/organizations/organizations.schemas.ts';
import {
  createOrganization,
  listOrganizationsPage,
  serializeOrganization,
} from '../../modules/organizations/organizations.service.ts';
import { errorResponses, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, organizationAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

export const organizationRoutes: RouteModule = (app, deps) => {
  const tag = 'organizations';

  app.get(
    '/api/organizations/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'List your organizations',
          description:
            "The organizations the key's user belongs to (within the key's limits), by when they were joined.",
          returns: 'A page of organizations',
          paging: true,
        }),
        querystring: PageQuery,
        response: { 200: Page(Organization), ...errorResponses },
      },
      config: { access: { scopes: ['organization:read'] } },
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) => listOrganizationsPage(deps, actorOf(request), { page })),
  );

  app.post(
    '/api/organizations/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Create an organization',
          description: "A new organization; the key's user becomes its owner (level 15).",
          returns: 'The organization',
        }),
        body: CreateOrganizationBody,
        response: { 201: Organization, ...errorResponses },
      },
      config: { access: { scopes: ['organization:write'] } },
    },
    async (request, reply) => {
      const organization = await createOrganization(deps, {
        name: request.body.name,
        ownerId: actorOf(request).user.id,
      });
      return reply.code(201).send(organization);
    },
  );

  // The organization and the caller's level there are what the access check found.
  app.get(
    '/api/organizations/:id/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve an organization',
          description: "One organization of the key's user, with their level in it.",
          returns: 'The organization',
          errors: { 403: 'an organization the user does not belong to', 404: 'an unknown id' },
        }),
        params: OrganizationIdParams,
        response: { 200: Organization, ...errorResponses },
      },
      config: { access: { scopes: ['organization:read'], organization: 'id' } },
    },
    async (request) => {
      const { organization, membership } = organizationAccessOf(request);
      return serializeOrganization(organization, membership.level);
    },
  );
};
