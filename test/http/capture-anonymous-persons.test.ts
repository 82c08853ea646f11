// An id used only by personless events is held by a placeholder row (person_id null) in
// person_distinct_ids: it is never a distinct id of anybody in the persons API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { eventsOf, personByDistinctId, post } from './capture-helpers.ts';

describe('placeholders of personless ids in the persons API', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let base: string;
  let linkedId: number;
  let realId: number;

  const anonymous = { $process_person_profile: false };
  async function capture(...batch: object[]) {
    const response = await post(ctx.app, '/batch/', { api_key: tenant.project.api_token, batch });
    assert.equal(response.statusCode, 200, response.body);
  }
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: unknown) =>
    ctx.app.inject({
      method,
      url,
      headers: tenant.headers,
      ...(payload === undefined ? {} : { payload: payload as string }),
    });

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    base = `/api/projects/${tenant.project.id}/persons`;
    await capture(
      { event: '$pageview', distinct_id: 'ghost-1', properties: anonymous },
      { event: '$pageview', distinct_id: 'ghost-2', properties: anonymous },
      { event: '$pageview', distinct_id: 'linked-anon', properties: anonymous },
      { event: 'signed up', distinct_id: 'real', $set: { email: 'real@example.com' } },
    );
    await capture({ event: '$identify', distinct_id: 'linked-user', properties: { $anon_distinct_id: 'linked-anon' } });
    const placeholders = await ctx.deps.db
      .selectFrom('person_distinct_ids')
      .select('distinct_id')
      .where('team_id', '=', tenant.project.id)
      .where('person_id', 'is', null)
      .orderBy('distinct_id')
      .execute();
    // The premise: the ghosts are held by placeholders.
    assert.deepEqual(
      placeholders.map((row) => row.distinct_id),
      ['ghost-1', 'ghost-2'],
    );
    linkedId = (await personByDistinctId(ctx.deps.db, tenant.project.id, 'linked-user'))?.id as number;
    realId = (await personByDistinctId(ctx.deps.db, tenant.project.id, 'real'))?.id as number;
  });
  after(() => ctx.close());

  it('lists, counts, retrieves and exports persons with their own distinct ids only', async () => {
    const list = await call('GET', `${base}/`);
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(list.json().count, 2);
    const byId = new Map(
      list.json().results.map((person: { id: number; distinct_ids: string[] }) => [person.id, person.distinct_ids]),
    );
    assert.deepEqual(byId.get(linkedId), ['linked-user', 'linked-anon']);
    assert.deepEqual(byId.get(realId), ['real']);
    assert.deepEqual((await call('GET', `${base}/${linkedId}/`)).json().distinct_ids, ['linked-user', 'linked-anon']);
    const csv = await call('GET', `${base}/?format=csv`);
    assert.equal(csv.statusCode, 200);
    assert.match(csv.body, /linked-anon/);
    assert.doesNotMatch(csv.body, /ghost/);
  });

  it('never matches a placeholder by distinct_id or search; the linked id finds its person', async () => {
    for (const query of ['distinct_id=ghost-1', 'search=ghost-1']) {
      const res = await call('GET', `${base}/?${query}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual([res.json().count, res.json().results], [0, []], query);
    }
    const linked = await call('GET', `${base}/?distinct_id=linked-anon`);
    assert.deepEqual(
      linked.json().results.map((person: { id: number }) => person.id),
      [linkedId],
    );
  });

  it('bulk_delete by the distinct id of a placeholder finds nobody; a static cohort of it has nobody', async () => {
    const deleted = await call('POST', `${base}/bulk_delete/`, { distinct_ids: ['ghost-1', 'ghost-2'] });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(deleted.json(), { persons_found: 0, persons_deleted: 0, events_queued_for_deletion: false });
    const cohort = await call('POST', `/api/projects/${tenant.project.id}/cohorts/`, {
      name: 'Ghosts',
      is_static: true,
      distinct_ids: ['ghost-1', 'real'],
    });
    assert.equal(cohort.statusCode, 201, cohort.body);
    assert.equal(cohort.json().count, 1);
  });

  it('a person delete leaves placeholders alone; the deleted ids come back personless and link again', async () => {
    const removed = await call('DELETE', `${base}/${linkedId}/`);
    assert.ok(removed.statusCode < 300, removed.body);
    const rows = await ctx.deps.db
      .selectFrom('person_distinct_ids')
      .select(['distinct_id', 'person_id'])
      .where('team_id', '=', tenant.project.id)
      .orderBy('distinct_id')
      .execute();
    assert.deepEqual(
      rows.map((row) => row.distinct_id),
      ['ghost-1', 'ghost-2', 'real'],
    );
    await capture({
      event: '$pageview',
      distinct_id: 'linked-anon',
      properties: anonymous,
      timestamp: '2026-01-01T00:00:00Z',
    });
    await capture({ event: '$identify', distinct_id: 'again', properties: { $anon_distinct_id: 'linked-anon' } });
    const again = await personByDistinctId(ctx.deps.db, tenant.project.id, 'again');
    assert.ok(again);
    assert.deepEqual(again.distinct_ids, ['again', 'linked-anon']);
    // The event of before the delete stays with the deleted person, as events do; the new one links.
    const events = (await eventsOf(ctx.deps.db, tenant.project.id)).filter(
      (event) => event.distinct_id === 'linked-anon',
    );
    assert.deepEqual(
      events.map((event) => event.person_id),
      [linkedId, again.id],
    );
  });
});
