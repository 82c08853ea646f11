// HogQLQuery through POST /query/: every construct of the issue over one project's events and
// persons, the answer's shape, and the row limits.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeEvent } from '../helpers/analytics-factories.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant, type TestPerson } from '../helpers/factories.ts';

describe('HogQLQuery', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let alice: TestPerson;
  let bob: TestPerson;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    const team = tenant.project.id;
    alice = await makePerson(ctx.deps.db, team, {
      distinctIds: ['alice-1'],
      properties: { email: 'alice@example.com', plan: 'pro' },
    });
    bob = await makePerson(ctx.deps.db, team, { distinctIds: ['bob-1'], properties: { email: 'bob@example.com' } });
    await makeEvent(ctx.deps.db, team, alice, '$pageview', '2024-03-01T10:00:00Z', {
      $browser: 'Chrome',
      price: '12',
      'utm source': 'news',
    });
    await makeEvent(ctx.deps.db, team, alice, '$pageview', '2024-03-02T11:30:00Z', { $browser: 'Firefox', price: 3 });
    await makeEvent(ctx.deps.db, team, bob, 'signed_up', '2024-03-03T09:00:00Z', { $browser: 'Chrome' });
  });
  after(() => ctx.close());

  const query = (text: string, values?: Record<string, unknown>) =>
    ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${tenant.project.id}/query/`,
      headers: tenant.headers,
      payload: { query: { kind: 'HogQLQuery', query: text, ...(values && { values }) } },
    });

  it('counts events by name', async () => {
    const response = await query('select event, count() from events group by event order by count() desc');
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.deepEqual(body.columns, ['event', 'count()']);
    assert.deepEqual(body.results, [
      ['$pageview', 2],
      ['signed_up', 1],
    ]);
    assert.deepEqual(body.types, [
      ['event', 'String'],
      ['count()', 'UInt64'],
    ]);
    assert.equal(body.hasMore, false);
    assert.equal(body.limit, 100);
    assert.equal(body.offset, 0);
    assert.match(body.hogql, /^SELECT event, count\(\) FROM events GROUP BY event ORDER BY count\(\) DESC LIMIT 100$/);
  });
});
