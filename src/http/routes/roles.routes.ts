// Roles of an organization and their memberships. Reads need membership; writes need an admin or
// owner (the access plugin). Memberships have no retrieve, PATCH or PUT: those methods answer 405.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  addRoleMember,
  listRoleMembershipsPage,
  removeRoleMember,
} from '../../modules/roles/role-memberships.service.ts';
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
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const read = { access: { scopes: ['organization:read'], organization: 'organization_id' } };
const write = { access: { scopes: ['organization:write'], organization: 'organization_id', adminWrites: true } };

const NoContent = Type.Null({ description: 'No body' });
const ROLE_ERRORS =
  'a name that is blank, longer than 200 characters or already taken in the organization ignoring case (`unique`); a `feature_flags_access_level` other than 21 or 37 (`invalid_choice`)';
const NO_ROLE = 'an unknown role, or a role of another organization';

async function normalizeBody(request: FastifyRequest) {
  await emptyBodyAsObject(request);
  normalizeRoleBody(request.body);
}

const organizationIdOf = (request: FastifyRequest) => organizationAccessOf(request).organization.id;

export const roleRoutes: RouteModule = (app, deps) => {
  const tag = 'roles';
  const roles = '/api/organizations/:organization_id/roles/';
  const role = `${roles}:id/`;
  const memberships = `${roles}:role_id/role_memberships/`;

  app.get(
    roles,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List roles',
          description: "The organization's roles, with their members, by creation.",
          returns: 'A page of roles',
          paging: true,
        }),
        params: OrganizationParams,
        querystring: PageQuery,
        response: { 200: Page(Role), ...errorResponses },
      },
      config: read,
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) =>
        listRolesPage(deps, { organizationId: organizationIdOf(request), page }),
      ),
  );

  app.post(
    roles,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Create a role',
          description: "A new role with no members; the key's user is its `created_by`.",
          returns: 'The role',
          errors: { 400: ROLE_ERRORS },
        }),
        params: OrganizationParams,
        body: CreateRoleBody,
        response: { 201: Role, ...errorResponses },
      },
      config: write,
      preValidation: normalizeBody,
    },
    async (request, reply) => {
      const created = await createRole(deps, actorOf(request), {
        ...request.body,
        organizationId: organizationIdOf(request),
      });
      return reply.code(201).send(created);
    },
  );

  app.get(
    role,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve a role',
          description: 'One role of the organization, with its members.',
          returns: 'The role',
          errors: { 404: NO_ROLE },
        }),
        params: RoleParams,
        response: { 200: Role, ...errorResponses },
      },
      config: read,
    },
    async (request) => getRole(deps, { organizationId: organizationIdOf(request), id: request.params.id }),
  );

  app.patch(
    role,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Update a role',
          description:
            'Changes the fields given: its name (another case of its own name is allowed) or its feature-flag access level.',
          returns: 'The role',
          errors: { 400: ROLE_ERRORS, 404: NO_ROLE },
        }),
        params: RoleParams,
        body: PatchRoleBody,
        response: { 200: Role, ...errorResponses },
      },
      config: write,
      preValidation: normalizeBody,
    },
    async (request) =>
      updateRole(deps, actorOf(request), {
        ...request.body,
        organizationId: organizationIdOf(request),
        id: request.params.id,
      }),
  );

  app.put(
    role,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Update a role, name required',
          description: 'As PATCH, but `name` is required; a level left out stays as it is.',
          returns: 'The role',
          errors: { 400: ROLE_ERRORS, 404: NO_ROLE },
        }),
        params: RoleParams,
        body: CreateRoleBody,
        response: { 200: Role, ...errorResponses },
      },
      config: write,
      preValidation: normalizeBody,
    },
    async (request) =>
      updateRole(deps, actorOf(request), {
        ...request.body,
        organizationId: organizationIdOf(request),
        id: request.params.id,
      }),
  );

  app.delete(
    role,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete a role',
          description: 'Deletes the role and its memberships.',
          returns: 'Deleted; no body',
          errors: { 404: NO_ROLE },
        }),
        params: RoleParams,
        response: { 204: NoContent, ...errorResponses },
      },
      config: write,
    },
    async (request, reply) => {
      await deleteRole(deps, actorOf(request), { organizationId: organizationIdOf(request), id: request.params.id });
      return reply.code(204).send(null);
    },
  );

  app.get(
    memberships,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List the members of a role',
          description: "The role's memberships, by when they were made, then id.",
          returns: 'A page of role memberships',
          paging: true,
          errors: { 404: NO_ROLE },
        }),
        params: RoleMembershipsParams,
        querystring: PageQuery,
        response: { 200: Page(RoleMembership), ...errorResponses },
      },
      config: read,
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) =>
        listRoleMembershipsPage(deps, {
          organizationId: organizationIdOf(request),
          roleId: request.params.role_id,
          page,
        }),
      ),
  );

  app.post(
    memberships,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Add a member to a role',
          description: 'Attaches a member of the organization to the role.',
          returns: 'The role membership',
          errors: {
            400: '`user_uuid` missing (`required`) or not a uuid, "User does not exist." (not an active member), "User is already part of the role."',
            404: NO_ROLE,
          },
        }),
        params: RoleMembershipsParams,
        body: CreateRoleMembershipBody,
        response: { 201: RoleMembership, ...errorResponses },
      },
      config: write,
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const created = await addRoleMember(deps, actorOf(request), {
        organizationId: organizationIdOf(request),
        roleId: request.params.role_id,
        userUuid: request.body.user_uuid,
      });
      return reply.code(201).send(created);
    },
  );

  app.delete(
    `${memberships}:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Remove a member from a role',
          description:
            'Deletes the role membership (the user stays a member of the organization). Memberships have no retrieve, PATCH or PUT: those answer 405.',
          returns: 'Removed; no body',
          errors: { 404: `${NO_ROLE}, or no such membership in it` },
        }),
        params: RoleMembershipParams,
        response: { 204: NoContent, ...errorResponses },
      },
      config: write,
    },
    async (request, reply) => {
      await removeRoleMember(deps, actorOf(request), {
        organizationId: organizationIdOf(request),
        roleId: request.params.role_id,
        id: request.params.id,
      });
      return reply.code(204).send(null);
    },
  );
};
