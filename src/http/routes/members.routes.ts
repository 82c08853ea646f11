// Members of an organization: list, add (creating the user when new), change level, remove.
import { Type } from 'typebox';
import { AddMemberBody, MemberParams, UpdateMemberBody } from '../../modules/members/members.schemas.ts';
import { addMember, changeMemberLevel, listMembersPage, removeMember } from '../../modules/members/members.service.ts';
import { errorResponses, OrganizationMember, OrganizationParams, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { organizationAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

export const memberRoutes: RouteModule = (app, deps) => {
  const tag = 'members';
  const read = { scopes: ['organization_member:read'], organization: 'organization_id' };
  const write = { scopes: ['organization_member:write'], organization: 'organization_id', adminWrites: true };

  app.get(
    '/api/organizations/:organization_id/members/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'List the members of an organization',
          description: 'Every member with their user and level, by when they joined.',
          returns: 'A page of members',
          paging: true,
        }),
        params: OrganizationParams,
        querystring: PageQuery,
        response: { 200: Page(OrganizationMember), ...errorResponses },
      },
      config: { access: read },
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) =>
        listMembersPage(deps, { organizationId: organizationAccessOf(request).organization.id, page }),
      ),
  );

  app.post(
    '/api/organizations/:organization_id/members/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Add a member',
          description:
            'Makes the user with this e-mail a member, at `level` (default 1, member), creating the user when there is none. Only an owner adds an owner.',
          returns: 'The new membership',
          errors: {
            400: 'already a member (`unique`, `attr` `email`), a level other than 1, 8, 15',
            403: 'an admin adding an owner',
          },
        }),
        params: OrganizationParams,
        body: AddMemberBody,
        response: { 201: OrganizationMember, ...errorResponses },
      },
      config: { access: write },
    },
    async (request, reply) => {
      const { organization, membership } = organizationAccessOf(request);
      const { email, first_name, last_name, level } = request.body;
      const input = {
        organizationId: organization.id,
        email,
        firstName: first_name,
        lastName: last_name,
        level,
        callerMembership: membership,
      };
      return reply.code(201).send(await addMember(deps, input));
    },
  );

  app.patch(
    '/api/organizations/:organization_id/members/:user_uuid/',
    {
      schema: {
        ...describe({
          tag,
          summary: "Change a member's level",
          description:
            "Sets the member's level. Only an owner changes an owner's level or makes someone an owner; nobody changes their own. Several owners may coexist.",
          returns: 'The membership',
          errors: {
            403: "your own level, or an owner's level (or making an owner) without being an owner",
            404: 'no such member',
          },
        }),
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: OrganizationMember, ...errorResponses },
      },
      config: { access: write },
    },
    async (request) => {
      const target = { callerMembership: organizationAccessOf(request).membership, userUuid: request.params.user_uuid };
      return changeMemberLevel(deps, { ...target, level: request.body.level });
    },
  );

  app.delete(
    '/api/organizations/:organization_id/members/:user_uuid/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Remove a member',
          description:
            'Removes the user from the organization, with their role memberships there. Only an owner removes an owner; the organization keeps at least one owner.',
          returns: 'Removed; no body',
          errors: {
            400: 'the last owner',
            403: 'an owner, removed by someone who is not an owner',
            404: 'no such member',
          },
        }),
        params: MemberParams,
        response: { 204: Type.Null(), ...errorResponses },
      },
      config: { access: write },
    },
    async (request, reply) => {
      await removeMember(deps, {
        callerMembership: organizationAccessOf(request).membership,
        userUuid: request.params.user_uuid,
      });
      return reply.code(204).send(null);
    },
  );
};
