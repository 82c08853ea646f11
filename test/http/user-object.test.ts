// The User object wherever the API shows one: `is_email_verified` is a boolean, false for a user
// whose e-mail was never verified (also one stored before the column was written as false).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeMember, makeTenant, makeUser, type Tenant } from '../helpers/factories.ts';

interface UserObject {
  email: string;
  is_email_verified: unknown;
}

describe('the User object', () => {
  let ctx: TestContext;
  let tenant: Tenant;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
  });
  after(() => ctx.close());

  const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
    const response = await ctx.app.inject({ method, url, headers: tenant.headers, ...(payload ? { payload } : {}) });
    assert.ok(response.statusCode < 300, `${method} ${url}: ${response.statusCode} ${response.body}`);
    return response.json();
  };
  const setVerified = (email: string, verified: boolean | null) =>
    ctx.deps.db.updateTable('users').set({ is_email_verified: verified }).where('email', '=', email).execute();

  it('a new user is stored as not verified', async () => {
    const user = await makeUser(ctx.deps.db);
    assert.equal(user.is_email_verified, false);
  });

  it('is a boolean in members, role created_by, role members and cohort created_by', async () => {
    const org = `/api/organizations/${tenant.organization.id}`;
    const unverified = await makeUser(ctx.deps.db);
    const verified = await makeUser(ctx.deps.db);
    await makeMember(ctx.deps.db, tenant.organization, unverified);
    await makeMember(ctx.deps.db, tenant.organization, verified);
    // Stored null: a user written before new users were stored as false.
    await setVerified(unverified.email, null);
    await setVerified(tenant.owner.email, null);
    await setVerified(verified.email, true);
    const expected = (user: UserObject) => (user.email === verified.email ? true : false);

    const shown: UserObject[] = [];
    const members = await call('GET', `${org}/members/`);
    shown.push(...members.results.map((member: { user: UserObject }) => member.user));
    const added = await call('POST', `${org}/members/`, { email: `new-${Date.now()}@example.com` });
    shown.push(added.user);
    const role = await call('POST', `${org}/roles/`, { name: 'Verifiers' });
    shown.push(role.created_by);
    for (const user of [unverified, verified])
      shown.push((await call('POST', `${org}/roles/${role.id}/role_memberships/`, { user_uuid: user.uuid })).user);
    const listed = await call('GET', `${org}/roles/${role.id}/`);
    shown.push(...listed.members.map((membership: { user: UserObject }) => membership.user), listed.created_by);
    shown.push(
      ...(await call('GET', `${org}/roles/${role.id}/role_memberships/`)).results.map(
        (membership: { user: UserObject }) => membership.user,
      ),
    );
    const cohort = await call('POST', `/api/projects/${tenant.project.id}/cohorts/`, {
      name: 'Everyone',
      is_static: true,
    });
    shown.push(
      cohort.created_by,
      (await call('GET', `/api/projects/${tenant.project.id}/cohorts/${cohort.id}/`)).created_by,
    );

    assert.ok(shown.length >= 12);
    for (const user of shown) {
      assert.equal(typeof user.is_email_verified, 'boolean', `${user.email}: ${JSON.stringify(user)}`);
      assert.equal(user.is_email_verified, expected(user), user.email);
    }
    assert.ok(
      shown.some((user) => user.is_email_verified === true),
      'a verified user shows true',
    );
    assert.ok(
      shown.some((user) => user.email === tenant.owner.email && user.is_email_verified === false),
      'a stored null shows false',
    );
  });
});
