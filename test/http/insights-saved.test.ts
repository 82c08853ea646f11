// Saved insights: the platform's `insights` resource — shapes, scopes, isolation between projects,
// paging, search, validation of `filters`, and every change in the activity log.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { injectAs, type InjectMethod, type TestContext } from '../helpers/app.ts';
import { setupTwoTenants } from '../helpers/two-tenants.ts';
import { bearer, makeKey, makeProject, makeTenantMember, type Tenant } from '../helpers/factories.ts';

const NOW = '2026-06-01T12:00:00.000Z';
const TRENDS = { insight: 'TRENDS', events: [{ id: '$pageview' }], date_from: '-7d', interval: 'day' };
let ctx: TestContext;
let tenant: Tenant;
let other: Tenant;

before(async () => {
  ({ ctx, tenant, other } = await setupTwoTenants(NOW));
});
after(() => ctx.close());

const call = (method: InjectMethod, url: string, payload?: unknown, headers = tenant.headers) =>
  injectAs(ctx, method, url, payload, headers);
const base = (target: Tenant = tenant) => `/api/projects/${target.project.id}/insights`;

const activityOf = (id: number) =>
  ctx.deps.db
    .selectFrom('activity_log')
    .select(['activity', 'scope', 'team_id', 'user_id', 'detail'])
    .where('organization_id', '=', tenant.organization.id)
    .where('scope', '=', 'Insight')
    .where('item_id', '=', String(id))
    .orderBy('created_at')
    .orderBy('id')
    .execute();

describe('saved insights', () => {
  it('saves one (201) in the platform shape, with a short id, and logs it', async () => {
    const response = await call('POST', `${base()}/`, {
      name: 'Weekly views',
      description: 'All pages',
      filters: TRENDS,
    });
    assert.equal(response.statusCode, 201, response.body);
    const body = response.json();
    assert.deepEqual(Object.keys(body).sort(), [
      'created_at',
      'created_by',
      'description',
      'filters',
      'id',
      'last_modified_at',
      'last_modified_by',
      'name',
      'short_id',
    ]);
    assert.match(body.short_id, /^[A-Za-z0-9]{8}$/);
    assert.equal(body.name, 'Weekly views');
    assert.deepEqual(body.filters, TRENDS);
    assert.equal(body.created_at, NOW);
    assert.equal(body.last_modified_at, NOW);
    assert.equal(body.created_by.id, tenant.owner.id);
    assert.equal(body.last_modified_by.email, tenant.owner.email);
    const read = await call('GET', `${base()}/${body.id}/`);
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), body);
    const log = await activityOf(body.id);
    assert.deepEqual(
      log.map((entry) => [entry.activity, entry.team_id, entry.user_id]),
      [['created', tenant.project.id, tenant.owner.id]],
    );
    assert.equal((log[0].detail as { name: string }).name, 'Weekly views');
  });

  it('defaults: no name, no description, empty filters', async () => {
    const response = await call('POST', `${base()}/`, {});
    assert.equal(response.statusCode, 201, response.body);
    assert.deepEqual([response.json().name, response.json().description, response.json().filters], ['', '', {}]);
  });

  it('updates the fields given, moves last_modified_*, logs the changes; an unchanged PATCH writes nothing', async () => {
    const created = (await call('POST', `${base()}/`, { name: 'Signups', filters: TRENDS })).json();
    const editor = await makeTenantMember(ctx.deps.db, tenant, 1);
    ctx.clock.advance(60_000);
    const filters = { ...TRENDS, interval: 'week' };
    const response = await call(
      'PATCH',
      `${base()}/${created.id}/`,
      { name: 'Signups weekly', filters },
      editor.headers,
    );
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json();
    assert.equal(body.name, 'Signups weekly');
    assert.deepEqual(body.filters, filters);
    assert.equal(body.description, '');
    assert.equal(body.created_by.id, tenant.owner.id);
    assert.equal(body.last_modified_by.id, editor.user.id);
    assert.equal(body.last_modified_at, new Date(Date.parse(NOW) + 60_000).toISOString());
    const log = await activityOf(created.id);
    assert.deepEqual(
      log.map((entry) => entry.activity),
      ['created', 'updated'],
    );
    const changes = (log[1].detail as { changes: { field: string; before: unknown; after: unknown }[] }).changes;
    assert.deepEqual(
      changes.map((change) => [change.field, change.before, change.after]),
      [
        ['name', 'Signups', 'Signups weekly'],
        ['filters', TRENDS, filters],
      ],
    );
    ctx.clock.advance(60_000);
    const same = await call('PATCH', `${base()}/${created.id}/`, { name: 'Signups weekly' });
    assert.equal(same.json().last_modified_at, body.last_modified_at);
    assert.equal((await activityOf(created.id)).length, 2);
  });

  it('deletes with DELETE (204) and with PATCH deleted: true, each logged; then 404', async () => {
    const one = (await call('POST', `${base()}/`, { name: 'Gone' })).json();
    const deleted = await call('DELETE', `${base()}/${one.id}/`);
    assert.equal(deleted.statusCode, 204);
    assert.equal(deleted.body, '');
    assert.equal((await call('GET', `${base()}/${one.id}/`)).statusCode, 404);
    assert.equal((await call('DELETE', `${base()}/${one.id}/`)).statusCode, 404);
    assert.deepEqual(
      (await activityOf(one.id)).map((entry) => entry.activity),
      ['created', 'deleted'],
    );
    const two = (await call('POST', `${base()}/`, { name: 'Gone too' })).json();
    const patched = await call('PATCH', `${base()}/${two.id}/`, { deleted: true });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().name, 'Gone too');
    assert.equal((await call('GET', `${base()}/${two.id}/`)).statusCode, 404);
    assert.equal((await call('PATCH', `${base()}/${two.id}/`, { name: 'x' })).statusCode, 404);
  });

  it('refuses bad filters and fields with a 400 naming the field, writing nothing', async () => {
    const before = (await call('GET', `${base()}/`)).json().count;
    const created = (await call('POST', `${base()}/`, { name: 'Valid' })).json();
    const cases: [unknown, string][] = [
      [{ filters: [1, 2] }, 'filters'],
      [{ filters: 'TRENDS' }, 'filters'],
      [{ filters: null }, 'filters'],
      [{ filters: { big: 'x'.repeat(100_001) } }, 'filters'],
      [{ name: 'n'.repeat(401) }, 'name'],
      [{ description: { text: 'x' } }, 'description'],
    ];
    for (const [payload, attr] of cases) {
      const posted = await call('POST', `${base()}/`, payload);
      assert.equal(posted.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)}: ${posted.body}`);
      assert.equal(posted.json().attr, attr);
      const patched = await call('PATCH', `${base()}/${created.id}/`, payload);
      assert.equal(patched.statusCode, 400);
      assert.equal(patched.json().attr, attr);
    }
    assert.equal((await call('GET', `${base()}/`)).json().count, before + 1);
    assert.equal((await call('GET', `${base()}/${created.id}/`)).json().name, 'Valid');
    // A path id that is not an integer names no insight, as for cohorts.
    assert.equal((await call('GET', `${base()}/abc/`)).statusCode, 404);
  });

  it('pages, newest change first, and searches name and description with % and _ as text', async () => {
    const project = await makeProject(ctx.deps.db, tenant.organization);
    const url = `/api/projects/${project.id}/insights`;
    const names = ['100% done', 'a_b', 'axb', 'plain'];
    for (const name of names) {
      ctx.clock.advance(1000);
      assert.equal((await call('POST', `${url}/`, { name })).statusCode, 201);
    }
    const page = (await call('GET', `${url}/?limit=2&offset=1`)).json();
    assert.equal(page.count, 4);
    assert.deepEqual(
      page.results.map((insight: { name: string }) => insight.name),
      ['axb', 'a_b'],
    );
    assert.match(page.next, /limit=2&offset=3$/);
    assert.match(page.previous, /limit=2&offset=0$/);
    const search = async (text: string) =>
      (await call('GET', `${url}/?search=${encodeURIComponent(text)}`))
        .json()
        .results.map((insight: { name: string }) => insight.name);
    assert.deepEqual(await search('_'), ['a_b']);
    assert.deepEqual(await search('%'), ['100% done']);
    assert.deepEqual(await search('PLAIN'), ['plain']);
    const one = (await call('GET', `${url}/?limit=1`)).json().results[0];
    assert.deepEqual(
      (await call('GET', `${url}/?short_id=${one.short_id}`)).json().results.map((i: { id: number }) => i.id),
      [one.id],
    );
  });

  it('checks scopes: insight:read reads, insight:write writes', async () => {
    const created = (await call('POST', `${base()}/`, { name: 'Scoped' })).json();
    const reader = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['insight:read'] }));
    assert.equal((await call('GET', `${base()}/`, undefined, reader)).statusCode, 200);
    assert.equal((await call('GET', `${base()}/${created.id}/`, undefined, reader)).statusCode, 200);
    assert.equal((await call('POST', `${base()}/`, { name: 'no' }, reader)).statusCode, 403);
    assert.equal((await call('PATCH', `${base()}/${created.id}/`, { name: 'no' }, reader)).statusCode, 403);
    assert.equal((await call('DELETE', `${base()}/${created.id}/`, undefined, reader)).statusCode, 403);
    const none = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['person:read'] }));
    assert.equal((await call('GET', `${base()}/`, undefined, none)).statusCode, 403);
    const writer = bearer(await makeKey(ctx.deps.db, tenant.owner, { scopes: ['insight:write'] }));
    assert.equal((await call('PATCH', `${base()}/${created.id}/`, { name: 'Scoped 2' }, writer)).statusCode, 200);
    assert.equal((await call('GET', `${base()}/${created.id}/`)).json().name, 'Scoped 2');
  });

  it("never shows or changes another project's insight", async () => {
    const mine = (await call('POST', `${base()}/`, { name: 'Mine' })).json();
    const theirs = (await call('POST', `${base(other)}/`, { name: 'Theirs' }, other.headers)).json();
    // Their project's path with my insight's id, and mine with theirs: not found.
    assert.equal((await call('GET', `${base(other)}/${mine.id}/`, undefined, other.headers)).statusCode, 404);
    assert.equal((await call('PATCH', `${base(other)}/${mine.id}/`, { name: 'x' }, other.headers)).statusCode, 404);
    assert.equal((await call('DELETE', `${base(other)}/${mine.id}/`, undefined, other.headers)).statusCode, 404);
    assert.equal((await call('GET', `${base()}/${theirs.id}/`)).statusCode, 404);
    // My project's path with their key: refused.
    for (const method of ['GET', 'PATCH', 'DELETE'] as const) {
      const response = await call(method, `${base()}/${mine.id}/`, method === 'PATCH' ? {} : undefined, other.headers);
      assert.ok([403, 404].includes(response.statusCode), `${method}: ${response.statusCode}`);
    }
    assert.ok(
      [403, 404].includes((await call('POST', `${base()}/`, { name: 'x' }, other.headers)).statusCode),
      'no insight saved in my project by another organization',
    );
    const listed = (await call('GET', `${base(other)}/`, undefined, other.headers)).json();
    assert.deepEqual(
      listed.results.map((insight: { name: string }) => insight.name),
      ['Theirs'],
    );
    assert.equal((await call('GET', `${base()}/${mine.id}/`)).json().name, 'Mine');
  });

  it('leaves the insight aggregates where they were', async () => {
    const response = await call('GET', `${base()}/trend/?events=${encodeURIComponent('[{"id":"$pageview"}]')}`);
    assert.equal(response.statusCode, 200, response.body);
  });
});
