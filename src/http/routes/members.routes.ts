import { Type } from 'typebox';
import { permissionDenied } from '../../errors.ts';
import { OWNER_LEVEL } from '../../modules/access/access.service.ts';
import { addMember, changeMemberLevel, removeMember } from '../../modules/members/members.service.ts';
import { listMembers } from '../../modules/members/members.repository.ts';
import { AddMemberBody, MemberParams, MembersParams, UpdateMemberBody } from '../../modules/members/members.schemas.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { organizationAccessOf } from '../plugins/access.ts';
import { errorResponses, OrganizationMember, Page, PageQuery } from '../schemas/common.ts';
import { serializeMember } from '../serializers.ts';
import type { RouteModule } from './index.ts';

export const memberRoutes: RouteModule = (app, deps) => {
  const tags = ['members'];
  const read = { scopes: ['organization_member:read'], organization: 'organization_id' };
  const write = { scopes: ['organization_member:write'], organization: 'organization_id', adminWrites: true };

  app.get('/api/organizations/:organization_id/members/', {
    schema: { tags, params: MembersParams, querystring: PageQuery, response: { 200: Page(OrganizationMember), ...errorResponses } },
    config: { access: read },
  }, async (request) => {
    const { organization } = organizationAccessOf(request);
    const page = pageOf(request.query);
    const { count, members } = await listMembers(deps.db, organization.id, page);
    return pageEnvelope(request, deps.config.siteUrl, page, count, members.map((m) => serializeMember(m.membership, m.user)));
  });

  app.post('/api/organizations/:organization_id/members/', {
    schema: { tags, params: MembersParams, body: AddMemberBody, response: { 201: OrganizationMember, ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    const { organization, membership } = organizationAccessOf(request);
    const { email, first_name, last_name, level } = request.body;
    // An owner's level is given only by an owner, on joining as on a change.
    if (level === OWNER_LEVEL && membership.level !== OWNER_LEVEL) throw permissionDenied('Your organization access level is insufficient.');
    const member = await addMember(deps.db, { organizationId: organization.id, email, firstName: first_name, lastName: last_name, level }, deps.clock.now());
    return reply.code(201).send(serializeMember(member.membership, member.user));
  });

  app.patch('/api/organizations/:organization_id/members/:user_uuid/', {
    schema: { tags, params: MemberParams, body: UpdateMemberBody, response: { 200: OrganizationMember, ...errorResponses } },
    config: { access: write },
  }, async (request) => {
    const { membership } = organizationAccessOf(request);
    const member = await changeMemberLevel(deps.db, membership, request.params.user_uuid, request.body.level, deps.clock.now());
    return serializeMember(member.membership, member.user);
  });

  app.delete('/api/organizations/:organization_id/members/:user_uuid/', {
    schema: { tags, params: MemberParams, response: { 204: Type.Null(), ...errorResponses } },
    config: { access: write },
  }, async (request, reply) => {
    const { membership } = organizationAccessOf(request);
    await removeMember(deps.db, membership, request.params.user_uuid);
    return reply.code(204).send(null);
  });
};
