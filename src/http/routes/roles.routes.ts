// Roles of an organization and their memberships. Reads need membership; writes need an admin or
// owner (the access plugin). Memberships have no retrieve, PATCH or PUT: those methods answer 405.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { addRoleMember, listRoleMembershipsPage, removeRoleMember } from '../../modules/roles/role-memberships.service.ts';
import {
  CreateRoleBody,
  CreateRoleMembershipBody,
  normalizeRoleBody,
  PatchRoleBody,
  Role,
  RoleMembership,
  RoleMembershipParams,
  RoleMembershipsParams,
  RoleParams,
} from '../../modules/roles/roles.schemas.ts';
import { createRole, deleteRole, getRole, listRolesPage, updateRole } from '../../modules/roles/roles.service.ts';
import { errorResponses, OrganizationParams, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, organizationAccessOf } from '../plugins/access.ts';
import { emptyBodyAsObject } from '../route-helpers.ts';
import type { RouteModule } from '../route-module.ts';

const read = { access: { scopes: ['organization:read'], organization: 'organization_id' } };
const write = { access: { scopes: ['organization:write'], organization: 'organization_id', adminWrites: true } };

const NoContent = Type.Null({ description: 'No body' });

async function normalizeBody(request: FastifyRequest) {
  await emptyBodyAsObject(request);
  normalizeRoleBody(request.body);
}

const organizationIdOf = (request: FastifyRequest) => organizationAccessOf(request).organization.id;

export const roleRoutes: RouteModule = (app, deps) => {
  const tags = ['roles'];
  const roles = '/api/organizations/:organization_id/roles/';
  const role = `${roles}:id/`;
  const memberships = `${roles}:role_id/role_memberships/`;

  app.get(roles, {
    schema: { tags, params: OrganizationParams, querystring: PageQuery, response: { 200: Page(Role), ...errorResponses } },
    config: read,
  }, async (request) => listPage(request, deps.config.siteUrl, (page) => listRolesPage(deps, { organizationId: organizationIdOf(request), page })));

  app.post(roles, {
    schema: { tags, params: OrganizationParams, body: CreateRoleBody, response: { 201: Role, ...errorResponses } },
    config: write,
    preValidation: normalizeBody,
  }, async (request, reply) => {
    const created = await createRole(deps, actorOf(request), { ...request.body, organizationId: organizationIdOf(request) });
    return reply.code(201).send(created);
  });

  app.get(role, {
    schema: { tags, params: RoleParams, response: { 200: Role, ...errorResponses } },
    config: read,
  }, async (request) => getRole(deps, { organizationId: organizationIdOf(request), id: request.params.id }));

  app.patch(role, {
    schema: { tags, params: RoleParams, body: PatchRoleBody, response: { 200: Role, ...errorResponses } },
    config: write,
    preValidation: normalizeBody,
  }, async (request) => updateRole(deps, actorOf(request), { ...request.body, organizationId: organizationIdOf(request), id: request.params.id }));

  app.put(role, {
    schema: { tags, params: RoleParams, body: CreateRoleBody, response: { 200: Role, ...errorResponses } },
    config: write,
    preValidation: normalizeBody,
  }, async (request) => updateRole(deps, actorOf(request), { ...request.body, organizationId: organizationIdOf(request), id: request.params.id }));

  app.delete(role, {
    schema: { tags, params: RoleParams, response: { 204: NoContent, ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    await deleteRole(deps, actorOf(request), { organizationId: organizationIdOf(request), id: request.params.id });
    return reply.code(204).send(null);
  });

  app.get(memberships, {
    schema: { tags, params: RoleMembershipsParams, querystring: PageQuery, response: { 200: Page(RoleMembership), ...errorResponses } },
    config: read,
  }, async (request) => listPage(request, deps.config.siteUrl, (page) => listRoleMembershipsPage(deps, { organizationId: organizationIdOf(request), roleId: request.params.role_id, page })));

  app.post(memberships, {
    schema: { tags, params: RoleMembershipsParams, body: CreateRoleMembershipBody, response: { 201: RoleMembership, ...errorResponses } },
    config: write,
    preValidation: emptyBodyAsObject,
  }, async (request, reply) => {
    const created = await addRoleMember(deps, actorOf(request), { organizationId: organizationIdOf(request), roleId: request.params.role_id, userUuid: request.body.user_uuid });
    return reply.code(201).send(created);
  });

  app.delete(`${memberships}:id/`, {
    schema: { tags, params: RoleMembershipParams, response: { 204: NoContent, ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    await removeRoleMember(deps, actorOf(request), { organizationId: organizationIdOf(request), roleId: request.params.role_id, id: request.params.id });
    return reply.code(204).send(null);
  });
};
