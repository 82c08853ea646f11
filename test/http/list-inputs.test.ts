// Every list-of-ids input takes a list of scalars of its item's type: a nested list, an object, a
// null or (for text) a boolean item is a 400 naming the item, and nothing is deleted or written.
// (Coercion would otherwise read [[1]] as [1] or ["1"]: `ids=[[1]]` deleted person 1.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant, type TestPerson } from '../helpers/factories.ts';

describe('list-of-ids inputs refuse items that are not scalars of their type', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let one: TestPerson;
  let two: TestPerson;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    one = await makePerson(ctx.deps.db, tenant.project.id, { distinctIds: ['1', 'd-one'] });
    two = await makePerson(ctx.deps.db, tenant.project.id, { distinctIds: ['d-two'] });
  });
  after(() => ctx.close());

  const call = (method: 'POST' | 'PATCH', url: string, payload?: unknown) =>
    ctx.app.inject({
      method,
      url,
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  const personsUrl = () => `/api/projects/${tenant.project.id}/persons`;
  // The tenant's rows (its project's, its organization's): on Citus a count names its shard.
  const count = async (table: 'persons' | 'cohorts' | 'cohort_people') =>
    Number(
      (
        await ctx.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('team_id', '=', tenant.project.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const countAll = async (table: 'personal_api_keys') =>
    Number(
      (
        await ctx.deps.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const activity = async () =>
    Number(
      (
        await ctx.deps.db
          .selectFrom('activity_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('organization_id', '=', tenant.organization.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const snapshot = async () => ({
    persons: await count('persons'),
    cohorts: await count('cohorts'),
    keys: await countAll('personal_api_keys'),
    members: await count('cohort_people'),
    activity: await activity(),
  });

  async function refused(method: 'POST' | 'PATCH', url: string, payload: unknown, attr: string, detail: string) {
    const before = await snapshot();
    const response = await call(method, url, payload);
    assert.equal(response.statusCode, 400, `${JSON.stringify(payload)} → ${response.statusCode} ${response.body}`);
    assert.deepEqual(
      response.json(),
      { type: 'validation_error', code: 'invalid_input', detail, attr },
      JSON.stringify(payload),
    );
    assert.deepEqual(await snapshot(), before, `nothing written for ${JSON.stringify(payload)}`);
  }

  it('bulk_delete: ids and distinct_ids from the body', async () => {
    const url = `${personsUrl()}/bulk_delete/`;
    for (const item of [[one.id], [String(one.id)], [[one.id]], { id: one.id }, null, true]) {
      await refused('POST', url, { ids: [item] }, 'ids.0', 'Not a valid string.');
      await refused('POST', url, { ids: [two.id, item] }, 'ids.1', 'Not a valid string.');
    }
    for (const item of [[1], ['d-one'], [['d-one']], { d: 'd-one' }, null, true, false]) {
      await refused('POST', url, { distinct_ids: [item] }, 'distinct_ids.0', 'Not a valid string.');
      await refused(
        'POST',
        url,
        { distinct_ids: ['d-two', item], ids: [two.id] },
        'distinct_ids.1',
        'Not a valid string.',
      );
    }
    // Scalars are still read as before: numbers, ids as text, distinct ids given as numbers.
    const kept = await call('POST', url, { ids: [999999, '999998'], distinct_ids: [123, 'nobody'] });
    assert.equal(kept.statusCode, 200, kept.body);
    assert.equal(kept.json().persons_found, 0);
  });

  it('bulk_delete: the query string holds text only; a bracketed value is not an id and names no distinct id but itself', async () => {
    const url = `${personsUrl()}/bulk_delete/`;
    const before = await snapshot();
    for (const query of ['ids=[[1]]', `ids=[${one.id}]`, `ids=${one.id},[${two.id}]`]) {
      const response = await call('POST', `${url}?${query}`);
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.equal(response.json().attr, 'ids', query);
    }
    for (const query of ['distinct_ids=[[1]]', 'distinct_ids=["1"]', 'distinct_ids=[1]']) {
      const response = await call('POST', `${url}?${query}`);
      assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
      assert.equal(response.json().persons_found, 0, `${query} is not the distinct id "1"`);
    }
    assert.deepEqual(await snapshot(), before);
    const plain = await call('POST', `${url}?distinct_ids=1`);
    assert.equal(plain.json().persons_deleted, 1, 'the plain value still names its distinct id');
    one = await makePerson(ctx.deps.db, tenant.project.id, { distinctIds: ['1', 'd-one'] });
  });

  it('cohorts: distinct_ids of a static cohort, on create and on update', async () => {
    const url = `/api/projects/${tenant.project.id}/cohorts/`;
    for (const item of [['d-one'], [1], { id: 'd-one' }, null, true]) {
      await refused(
        'POST',
        url,
        { name: 'Nested', is_static: true, distinct_ids: [item] },
        'distinct_ids.0',
        'Not a valid string.',
      );
    }
    const created = await call('POST', url, { name: 'Static', is_static: true, distinct_ids: ['d-two'] });
    assert.equal(created.statusCode, 201, created.body);
    await refused(
      'PATCH',
      `${url}${created.json().id}/`,
      { distinct_ids: ['d-one', ['d-one']] },
      'distinct_ids.1',
      'Not a valid string.',
    );
    const members = await ctx.deps.db
      .selectFrom('cohort_people')
      .select('person_id')
      .where('team_id', '=', tenant.project.id)
      .where('cohort_id', '=', created.json().id)
      .execute();
    assert.deepEqual(
      members.map((member) => member.person_id),
      [two.id],
    );
  });

  it('personal API keys: scopes, scoped_organizations and scoped_teams', async () => {
    const url = '/api/personal_api_keys/';
    const valid = { label: 'nested', scopes: ['person:read'] };
    for (const item of [['*'], [['*']], { scope: '*' }, null, true]) {
      await refused('POST', url, { ...valid, scopes: [item] }, 'scopes.0', 'Not a valid string.');
    }
    for (const item of [[tenant.organization.id], { id: tenant.organization.id }, null]) {
      await refused(
        'POST',
        url,
        { ...valid, scoped_organizations: [tenant.organization.id, item] },
        'scoped_organizations.1',
        'Not a valid string.',
      );
    }
    for (const item of [[tenant.project.id], null, false]) {
      await refused('POST', url, { ...valid, scoped_teams: [item] }, 'scoped_teams.0', 'A valid integer is required.');
    }
    const created = await call('POST', url, { ...valid, scoped_teams: [String(tenant.project.id)] });
    assert.equal(created.statusCode, 201, created.body);
    assert.deepEqual(created.json().scoped_teams, [tenant.project.id]);
  });

  it('a scalar field refuses a list or an object, whatever its type', async () => {
    const url = `/api/projects/${tenant.project.id}/cohorts/`;
    await refused('POST', url, { name: ['Nested'] }, 'name', 'Not a valid string.');
    await refused('POST', url, { name: 'Flag', is_static: [true] }, 'is_static', 'Must be a valid boolean.');
    await refused(
      'POST',
      `${personsUrl()}/bulk_delete/`,
      { ids: [two.id], delete_events: [true] },
      'delete_events',
      'Must be a valid boolean.',
    );
    assert.ok(
      await ctx.deps.db
        .selectFrom('persons')
        .select('id')
        .where('team_id', '=', tenant.project.id)
        .where('id', '=', two.id)
        .executeTakeFirst(),
      'still there',
    );
  });
});
