import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext, injectAs, type InjectMethod } from '../helpers/app.ts';
import {
  makePerson,
  makeProject,
  makeTenant,
  makeTenantMember,
  type Tenant,
  type TestPerson,
} from '../helpers/factories.ts';
import { enc } from './persons.fixtures.ts';

describe('cohorts', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let base: string;
  let pro: TestPerson;
  let free: TestPerson;
  let vip: TestPerson;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
    base = `/api/projects/${tenant.project.id}/cohorts`;
    pro = await makePerson(ctx.deps.db, tenant.project.id, {
      properties: { plan: 'pro', age: 40 },
      distinctIds: ['pro'],
    });
    free = await makePerson(ctx.deps.db, tenant.project.id, {
      properties: { plan: 'free', age: 20 },
      distinctIds: ['free'],
    });
    vip = await makePerson(ctx.deps.db, tenant.project.id, {
      properties: { plan: 'pro', age: 18 },
      distinctIds: ['vip', 'vip-2'],
    });
  });
  after(() => ctx.close());

  const call = (method: InjectMethod, url: string, payload?: unknown, headers = tenant.headers) =>
    injectAs(ctx, method, url, payload, headers);
  const personIds = async (filter: unknown) =>
    (await call('GET', `/api/projects/${tenant.project.id}/persons/?properties=${enc(filter)}`))
      .json()
      .results.map((p: { id: number }) => p.id)
      .sort();

  it('creates a dynamic cohort (201) with the cohort object and a live count', async () => {
    const filters = { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro' }] } };
    const res = await call('POST', `${base}/`, { name: '  Pro users ', filters });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.name, 'Pro users');
    assert.equal(body.description, '');
    assert.deepEqual(body.filters, filters);
    assert.equal(body.is_static, false);
    assert.equal(body.count, 2);
    assert.equal(body.created_by.id, tenant.owner.id);
    assert.equal(body.created_by.email, tenant.owner.email);
    assert.deepEqual(Object.keys(body).sort(), [
      'count',
      'created_at',
      'created_by',
      'description',
      'filters',
      'id',
      'is_static',
      'name',
    ]);
    assert.deepEqual(
      await personIds([{ type: 'cohort', key: 'id', value: body.id }]),
      [pro.id, vip.id].sort((a, b) => a - b),
    );
    assert.deepEqual(await personIds([{ type: 'cohort', key: 'id', value: body.id, operator: 'not_in' }]), [free.id]);
  });

  it('creates a static cohort from distinct ids; filters stay null', async () => {
    const res = await call('POST', `${base}/`, {
      name: 'Picked',
      is_static: true,
      distinct_ids: ['free', 'vip-2', 'unknown'],
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().filters, null);
    assert.equal(res.json().count, 2);
    assert.deepEqual(
      await personIds([{ type: 'cohort', value: res.json().id }]),
      [free.id, vip.id].sort((a, b) => a - b),
    );
  });

  it('resolves cohorts inside cohorts and refuses cycles', async () => {
    const young = (
      await call('POST', `${base}/`, {
        name: 'Young',
        filters: { properties: [{ key: 'age', value: 30, operator: 'lt' }] },
      })
    ).json();
    const proAndYoung = (
      await call('POST', `${base}/`, {
        name: 'Young pros',
        filters: {
          properties: {
            type: 'AND',
            values: [
              { key: 'plan', value: 'pro' },
              { type: 'cohort', value: young.id },
            ],
          },
        },
      })
    ).json();
    assert.equal(proAndYoung.count, 1);
    assert.deepEqual(await personIds([{ type: 'cohort', value: proAndYoung.id }]), [vip.id]);
    const cycle = await call('PATCH', `${base}/${young.id}/`, {
      filters: { properties: [{ type: 'cohort', value: proAndYoung.id }] },
    });
    assert.equal(cycle.statusCode, 400);
    assert.equal(cycle.json().attr, 'filters');
    const self = await call('PATCH', `${base}/${young.id}/`, {
      filters: { properties: [{ type: 'cohort', value: young.id }] },
    });
    assert.equal(self.statusCode, 400);
  });

  it("answers 400 for a cohort filter naming an unknown cohort or another project's", async () => {
    const foreign = (
      await call(
        'POST',
        `/api/projects/${other.project.id}/cohorts/`,
        { name: 'Theirs', filters: { properties: [] } },
        other.headers,
      )
    ).json();
    for (const id of [999999, foreign.id]) {
      const res = await call(
        'GET',
        `/api/projects/${tenant.project.id}/persons/?properties=${enc([{ type: 'cohort', value: id }])}`,
      );
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().attr, 'properties');
      const create = await call('POST', `${base}/`, {
        name: 'Bad',
        filters: { properties: [{ type: 'cohort', value: id }] },
      });
      assert.equal(create.statusCode, 400);
      assert.equal(create.json().attr, 'filters');
    }
    assert.equal((await call('GET', `${base}/${foreign.id}/`)).statusCode, 404);
    assert.equal((await call('PATCH', `${base}/${foreign.id}/`, { name: 'x' })).statusCode, 404);
    assert.equal((await call('DELETE', `${base}/${foreign.id}/`)).statusCode, 404);
  });

  it('counts the values of the cohorts a filter names towards the 10 000 limit', async () => {
    const many = Array.from({ length: 6_000 }, (_, index) => `v${index}`);
    const big = (
      await call('POST', `${base}/`, { name: 'Big', filters: { properties: [{ key: 'plan', value: many }] } })
    ).json();
    const twice = [
      { type: 'cohort', key: 'id', value: big.id },
      { type: 'cohort', key: 'id', value: big.id },
    ];
    const listed = await call('GET', `/api/projects/${tenant.project.id}/persons/?properties=${enc(twice)}`);
    assert.equal(listed.statusCode, 400, listed.body.slice(0, 200));
    assert.equal(listed.json().attr, 'properties');
    const before = (await call('GET', `${base}/`)).json().count;
    const nested = await call('POST', `${base}/`, { name: 'Twice', filters: { properties: twice } });
    assert.equal(nested.statusCode, 400, nested.body.slice(0, 200));
    assert.equal(nested.json().attr, 'filters');
    const after = await call('GET', `${base}/`);
    assert.equal(after.statusCode, 200);
    assert.equal(after.json().count, before);
    assert.equal(
      (await call('GET', `/api/projects/${tenant.project.id}/persons/?properties=${enc([twice[0]])}`)).statusCode,
      200,
    );
    assert.equal((await call('DELETE', `${base}/${big.id}/`)).statusCode, 204);
  });

  it('validates the body', async () => {
    const missing = await call('POST', `${base}/`, {});
    assert.deepEqual(missing.json(), {
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'name',
    });
    const blank = await call('POST', `${base}/`, { name: '   ' });
    assert.equal(blank.json().code, 'blank');
    const badFilters = await call('POST', `${base}/`, {
      name: 'x',
      filters: { properties: [{ key: 'a', value: 1, operator: 'nope' }] },
    });
    assert.equal(badFilters.statusCode, 400);
    assert.equal(badFilters.json().attr, 'filters');
    const before = (await call('GET', `${base}/`)).json().count;
    const eventFilter = await call('POST', `${base}/`, {
      name: 'events',
      filters: { properties: [{ key: 'a', value: 1, type: 'event' }] },
    });
    assert.equal(eventFilter.statusCode, 400, eventFilter.body);
    assert.equal(eventFilter.json().attr, 'filters');
    const listed = await call('GET', `${base}/`);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.equal(listed.json().count, before);
    const notObject = await call('POST', `${base}/`, { name: 'x', filters: [1] });
    assert.equal(notObject.json().attr, 'filters');
    assert.equal((await call('GET', `${base}/abc/`)).statusCode, 404);
  });

  it('lists (envelope, newest first), retrieves, updates and deletes', async () => {
    const created = (
      await call('POST', `${base}/`, { name: 'To change', description: 'd', is_static: true, distinct_ids: ['pro'] })
    ).json();
    const list = (await call('GET', `${base}/?limit=2`)).json();
    assert.equal(list.results[0].id, created.id);
    assert.equal(list.results.length, 2);
    assert.ok(list.count >= 5);
    assert.ok(list.next);
    assert.equal((await call('GET', `${base}/${created.id}/`)).json().description, 'd');
    const patched = await call('PATCH', `${base}/${created.id}/`, { name: 'Changed', distinct_ids: ['free', 'vip'] });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().name, 'Changed');
    assert.equal(patched.json().count, 2);
    assert.equal((await call('DELETE', `${base}/${created.id}/`)).statusCode, 204);
    assert.equal((await call('GET', `${base}/${created.id}/`)).statusCode, 404);
  });

  it('a deleted person, alone or in bulk, leaves its static cohorts, and a deleted cohort leaves no member', async () => {
    // No foreign key cascades to the member rows (migration 0019): the deletes must remove them.
    const people: TestPerson[] = [];
    for (const id of ['gone-1', 'gone-2', 'gone-3', 'stays'])
      people.push(await makePerson(ctx.deps.db, tenant.project.id, { distinctIds: [id] }));
    const members = async (cohortId: number) =>
      (
        await ctx.deps.db
          .selectFrom('cohort_people')
          .select('person_id')
          .where('team_id', '=', tenant.project.id)
          .where('cohort_id', '=', cohortId)
          .orderBy('person_id')
          .execute()
      ).map((row) => row.person_id);
    const created = await call('POST', `${base}/`, {
      name: 'Leaving',
      is_static: true,
      distinct_ids: ['gone-1', 'gone-2', 'gone-3', 'stays'],
    });
    assert.equal(created.json().count, 4, created.body);
    const cohort = created.json().id;
    const persons = `/api/projects/${tenant.project.id}/persons`;
    assert.equal((await call('DELETE', `${persons}/${people[0].id}/`)).statusCode, 204);
    assert.deepEqual(await members(cohort), [people[1].id, people[2].id, people[3].id]);
    const bulk = await call('POST', `${persons}/bulk_delete/`, { ids: [people[1].uuid, people[2].uuid] });
    assert.equal(bulk.statusCode, 200, bulk.body);
    assert.deepEqual(await members(cohort), [people[3].id]);
    assert.equal((await call('GET', `${base}/${cohort}/`)).json().count, 1);
    assert.equal((await call('DELETE', `${base}/${cohort}/`)).statusCode, 204);
    assert.deepEqual(await members(cohort), []);
  });

  it('switches a cohort between dynamic and static on PATCH', async () => {
    const dynamic = (
      await call('POST', `${base}/`, { name: 'Switch', filters: { properties: [{ key: 'plan', value: 'pro' }] } })
    ).json();
    assert.equal(dynamic.count, 2);
    const frozen = await call('PATCH', `${base}/${dynamic.id}/`, { is_static: true });
    assert.equal(frozen.statusCode, 200, frozen.body);
    assert.equal(frozen.json().is_static, true);
    assert.equal(frozen.json().count, dynamic.count);
    const listed = await call('PATCH', `${base}/${dynamic.id}/`, { distinct_ids: ['free'] });
    assert.equal(listed.json().count, 1);
    const back = await call('PATCH', `${base}/${dynamic.id}/`, { is_static: false });
    assert.equal(back.json().is_static, false);
    assert.equal(back.json().count, dynamic.count);
    const rows = await ctx.deps.db
      .selectFrom('cohort_people')
      .select('person_id')
      .where('team_id', '=', tenant.project.id)
      .where('cohort_id', '=', dynamic.id)
      .execute();
    assert.equal(rows.length, 0);
  });

  it('needs cohort scopes and keeps projects apart', async () => {
    const reader = await makeTenantMember(ctx.deps.db, tenant, 1, ['cohort:read']);
    assert.equal((await call('GET', `${base}/`, undefined, reader.headers)).statusCode, 200);
    const denied = await call('POST', `${base}/`, { name: 'x' }, reader.headers);
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().detail, "API key missing required scope 'cohort:write'");
    const second = await makeProject(ctx.deps.db, tenant.organization);
    assert.equal((await call('GET', `/api/projects/${second.id}/cohorts/`)).json().count, 0);
    assert.equal((await call('GET', `/api/projects/${other.project.id}/cohorts/`)).statusCode, 403);
  });
});
