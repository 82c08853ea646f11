// Roles of an organization and their memberships. Reads need membership; writes need an admin or
// owner (the access plugin). Memberships have no retrieve, PATCH or PUT: those methods answer 405.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { addRoleMember, listRoleMembershipsPage, removeRoleMember } from '../../modules/roles/role-memberships.service.ts';
import {
  CreateRoleBody,
  CreateRoleMembershipBody,
  normalizeRoleBody,
  OrganizationParams,
  PatchRoleBody,
  Role,
  RoleMembership,
  RoleMembershipParams,
  RoleMembershipsParams,
  RoleParams,
} from '../../modules/roles/roles.schemas.ts';
import { createRole, deleteRole, getRole, listRolesPage, updateRole } from '../../modules/roles/roles.service.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { actorOf, organizationAccessOf } from '../plugins/access.ts';
import { errorResponses, Page, PageQuery } from '../schemas/common.ts';
import type { RouteModule } from './index.ts';

const read = { access: { scopes: ['organization:read'], organization: 'organization_id' } };
const write = { access: { scopes: ['organization:write'], organization: 'organization_id', adminWrites: true } };

const NoContent = Type.Null({ description: 'No body' });

// A request without a body is an empty form, as DRF reads it: "required" names the missing field.
async function emptyBodyAsObject(request: FastifyRequest) {
  if (request.body === undefined) request.body = {};
}

async function normalizeBody(request: FastifyRequest) {
  await emptyBodyAsObject(request);
  normalizeRoleBody(request.body);
}

function roleActor(request: FastifyRequest) {
  return { organizationId: organizationAccessOf(request).organization.id, userId: actorOf(request).user.id };
}

export const roleRoutes: RouteModule = (app, deps) => {
  const tags = ['roles'];
  const roles = '/api/organizations/:organization_id/roles/';
  const role = `${roles}:id/`;
  const memberships = `${roles}:role_id/role_memberships/`;

  app.get(roles, {
    schema: { tags, params: OrganizationParams, querystring: PageQuery, response: { 200: Page(Role), ...errorResponses } },
    config: read,
  }, async (request) => {
    const page = pageOf(request.query);
    const { count, results } = await listRolesPage(deps.db, organizationAccessOf(request).organization.id, page);
    return pageEnvelope(request, deps.config.siteUrl, page, count, results);
  });

  app.post(roles, {
    schema: { tags, params: OrganizationParams, body: CreateRoleBody, response: { 201: Role, ...errorResponses } },
    config: write,
    preValidation: normalizeBody,
  }, async (request, reply) => {
    const created = await createRole(deps.db, roleActor(request), request.body, deps.clock.now());
    return reply.code(201).send(created);
  });

  app.get(role, {
    schema: { tags, params: RoleParams, response: { 200: Role, ...errorResponses } },
    config: read,
  }, async (request) => getRole(deps.db, organizationAccessOf(request).organization.id, request.params.id));

  app.patch(role, {
    schema: { tags, params: RoleParams, body: PatchRoleBody, response: { 200: Role, ...errorResponses } },
    config: write,
    preValidation: normalizeBody,
  }, async (request) => updateRole(deps.db, roleActor(request), request.params.id, request.body, deps.clock.now()));

  app.put(role, {
    schema: { tags, params: RoleParams, body: CreateRoleBody, response: { 200: Role, ...errorResponses } },
    config: write,
    preValidation: normalizeBody,
  }, async (request) => updateRole(deps.db, roleActor(request), request.params.id, request.body, deps.clock.now()));

  app.delete(role, {
    schema: { tags, params: RoleParams, response: { 204: NoContent, ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    await deleteRole(deps.db, roleActor(request), request.params.id, deps.clock.now());
    return reply.code(204).send(null);
  });

  app.get(memberships, {
    schema: { tags, params: RoleMembershipsParams, querystring: PageQuery, response: { 200: Page(RoleMembership), ...errorResponses } },
    config: read,
  }, async (request) => {
    const page = pageOf(request.query);
    const organizationId = organizationAccessOf(request).organization.id;
    const { count, results } = await listRoleMembershipsPage(deps.db, organizationId, request.params.role_id, page);
    return pageEnvelope(request, deps.config.siteUrl, page, count, results);
  });

  app.post(memberships, {
    schema: { tags, params: RoleMembershipsParams, body: CreateRoleMembershipBody, response: { 201: RoleMembership, ...errorResponses } },
    config: write,
    preValidation: emptyBodyAsObject,
  }, async (request, reply) => {
    const created = await addRoleMember(deps.db, roleActor(request), request.params.role_id, request.body.user_uuid, deps.clock.now());
    return reply.code(201).send(created);
  });

  app.delete(`${memberships}:id/`, {
    schema: { tags, params: RoleMembershipParams, response: { 204: NoContent, ...errorResponses } },
    config: write,
  }, async (request, reply) => {
    await removeRoleMember(deps.db, roleActor(request), request.params.role_id, request.params.id, deps.clock.now());
    return reply.code(204).send(null);
  });
};
