// Members of an organization: list, add (creating the user when new), change level, remove.
import { Type } from 'typebox';
import { AddMemberBody, MemberParams, UpdateMemberBody } from '../../modules/members/members.schemas.ts';
import { addMember, changeMemberLevel, listMembersPage, removeMember } from '../../modules/members/members.service.ts';
import { errorResponses, OrganizationMember, OrganizationParams, Page, PageQuery } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { organizationAccessOf } from '../plugins/access.ts';
import type { RouteModule } from '../route-module.ts';

export const memberRoutes: RouteModule = (app, deps) => {
  const tags = ['members'];
  const read = { scopes: ['organization_member:read'], organization: 'organization_id' };
  const write = { scopes: ['organization_member:write'], organization: 'organization_id', adminWrites: true };

  app.get('/api/organizations/:organization_id/members/', {
    schema: { tags, params: OrganizationParams, querystring: PageQuery, response: { 200: Page(OrganizationMember), ...errorResponses } },
    config: { access: read },
  }, async (request) => listPage(request, deps.config.siteUrl, (page) => listMembersPage(deps, { organizationId: organizationAccessOf(request).organization.id, page })));

  app.post('/api/organizations/:organization_id/members/', {
    schema: { tags, params: OrganizationParams, body: AddMemberBody, response: { 201: OrganizationMember, ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    const { organization, membership } = organizationAccessOf(request);
    const { email, first_name, last_name, level } = request.body;
    const input = { organizationId: organization.id, email, firstName: first_name, lastName: last_name, level, callerMembership: membership };
    return reply.code(201).send(await addMember(deps, input));
  });

  app.patch('/api/organizations/:organization_id/members/:user_uuid/', {
    schema: { tags, params: MemberParams, body: UpdateMemberBody, response: { 200: OrganizationMember, ...errorResponses } },
    config: { access: write },
  }, async (request) => {
    const target = { callerMembership: organizationAccessOf(request).membership, userUuid: request.params.user_uuid };
    return changeMemberLevel(deps, { ...target, level: request.body.level });
  });

  app.delete('/api/organizations/:organization_id/members/:user_uuid/', {
    schema: { tags, params: MemberParams, response: { 204: Type.Null(), ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    await removeMember(deps, { callerMembership: organizationAccessOf(request).membership, userUuid: request.params.user_uuid });
    return reply.code(204).send(null);
  });
};
