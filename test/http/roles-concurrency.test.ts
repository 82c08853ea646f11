// Simultaneous writers: the unique indexes decide, and the loser gets the same 400 as a late
// request would — never a 500, never a duplicate row. On PostgreSQL the requests truly race.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeMember, makeTenant, makeUser, type Tenant } from '../helpers/factories.ts';

describe('roles under concurrent writes', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let base: string;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    base = `/api/organizations/${tenant.organization.id}/roles/`;
  });
  after(() => ctx.close());

  const statuses = (responses: { statusCode: number }[]) => responses.map((res) => res.statusCode).sort();

  it('creates one role of two simultaneous creates with the same name', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `Race ${round}`;
      const responses = await Promise.all([
        ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name } }),
        ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name: name.toUpperCase() } }),
      ]);
      assert.deepEqual(statuses(responses), [201, 400], responses.map((res) => res.body).join(' | '));
      const loser = responses.find((res) => res.statusCode === 400);
      assert.deepEqual(loser?.json(), {
        type: 'validation_error',
        code: 'unique',
        detail: 'There is already a role with this name.',
        attr: 'name',
      });
      const rows = await ctx.deps.db
        .selectFrom('roles')
        .select('id')
        .where('organization_id', '=', tenant.organization.id)
        .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
        .execute();
      assert.equal(rows.length, 1);
      const logged = await ctx.deps.db
        .selectFrom('activity_log')
        .select('id')
        .where('organization_id', '=', tenant.organization.id)
        .where('item_id', '=', rows[0].id)
        .execute();
      assert.equal(logged.length, 1);
    }
  });

  it('renames one of two roles when both race to the same new name', async () => {
    const first = (
      await ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name: 'Left' } })
    ).json().id;
    const second = (
      await ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name: 'Right' } })
    ).json().id;
    const responses = await Promise.all(
      [first, second].map((id) =>
        ctx.app.inject({ method: 'PATCH', url: `${base}${id}/`, headers: tenant.headers, payload: { name: 'Center' } }),
      ),
    );
    assert.deepEqual(statuses(responses), [200, 400], responses.map((res) => res.body).join(' | '));
    assert.equal(responses.find((res) => res.statusCode === 400)?.json().code, 'unique');
  });

  it('adds a user once when two requests add the same user to a role', async () => {
    for (let round = 0; round < 5; round++) {
      const role = (
        await ctx.app.inject({
          method: 'POST',
          url: base,
          headers: tenant.headers,
          payload: { name: `Membership race ${round}` },
        })
      ).json();
      const user = await makeUser(ctx.deps.db);
      await makeMember(ctx.deps.db, tenant.organization, user);
      const url = `${base}${role.id}/role_memberships/`;
      const responses = await Promise.all([
        ctx.app.inject({ method: 'POST', url, headers: tenant.headers, payload: { user_uuid: user.uuid } }),
        ctx.app.inject({ method: 'POST', url, headers: tenant.headers, payload: { user_uuid: user.uuid } }),
      ]);
      assert.deepEqual(statuses(responses), [201, 400], responses.map((res) => res.body).join(' | '));
      assert.deepEqual(responses.find((res) => res.statusCode === 400)?.json(), {
        type: 'validation_error',
        code: 'invalid_input',
        detail: 'User is already part of the role.',
        attr: null,
      });
      const list = await ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
      assert.equal(list.json().count, 1);
    }
  });

  it('deletes a role once when two deletes race', async () => {
    const role = (
      await ctx.app.inject({ method: 'POST', url: base, headers: tenant.headers, payload: { name: 'Delete race' } })
    ).json();
    const responses = await Promise.all([
      ctx.app.inject({ method: 'DELETE', url: `${base}${role.id}/`, headers: tenant.headers }),
      ctx.app.inject({ method: 'DELETE', url: `${base}${role.id}/`, headers: tenant.headers }),
    ]);
    assert.deepEqual(statuses(responses), [204, 404]);
    const logged = await ctx.deps.db
      .selectFrom('activity_log')
      .select('activity')
      .where('organization_id', '=', tenant.organization.id)
      .where('item_id', '=', role.id)
      .where('activity', '=', 'deleted')
      .execute();
    assert.equal(logged.length, 1);
  });
});
