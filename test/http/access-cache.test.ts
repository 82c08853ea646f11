// The access check of a known key on a known target reads nothing from the database; what it
// keeps is bounded, and a stranger's keys are never kept. Past it, a person read is one statement. (How changes reach every server:
// test/integration/access-cache.test.ts.)
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { ACCESS_CHANNEL } from '../../src/db/changes.ts';
import type { App } from '../../src/http/route-module.ts';
import { AccessCache } from '../../src/modules/access/access-cache.ts';
import { authorizeRequest } from '../../src/modules/access/access.service.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { bearer, makePerson, makeTenant, makeTenantMember, type Tenant } from '../helpers/factories.ts';

/** Counts the statements the app runs. */
class Counter implements KyselyPlugin {
  statements = 0;
  transformQuery({ node }: PluginTransformQueryArgs) {
    this.statements += 1;
    return node;
  }
  async transformResult({ result }: PluginTransformResultArgs) {
    return result;
  }
}

describe('access kept in memory', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let counted: App;
  const counter = new Counter();

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    counted = await buildApp({ ...ctx.deps, db: ctx.deps.db.withPlugin(counter) });
  });
  after(async () => {
    await counted.close();
    await ctx.close();
  });

  /**
   * Until the notifications of every change committed so far have reached this process: on
   * PostgreSQL they arrive after the commit, and a late one rightly drops what was kept after it.
   */
  const settled = async () => {
    const marker = `test:${crypto.randomUUID()}`;
    let stop: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      void ctx.deps
        .changes!.subscribe({ changed: (payload) => payload === marker && resolve(), live: () => {} })
        .then((unsubscribe) => {
          stop = unsubscribe;
          return sql`select pg_notify(${ACCESS_CHANNEL}, ${marker})`.execute(ctx.deps.db);
        });
    });
    await arrived;
    stop();
  };

  const statementsOf = async (url: string, headers: Record<string, string>, status = 200) => {
    const before = counter.statements;
    const res = await counted.inject({ method: 'GET', url, headers });
    assert.equal(res.statusCode, status, res.body);
    return counter.statements - before;
  };

  it('a known key on a known project or organization costs no statement', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    await settled();
    for (const url of [
      `/api/projects/${tenant.project.id}/`,
      '/api/projects/@current/',
      `/api/organizations/${tenant.organization.id}/`,
      '/api/organizations/@current/',
    ]) {
      assert.ok((await statementsOf(url, member.headers)) > 0, `${url}: looked up the first time`);
      assert.equal(await statementsOf(url, member.headers), 0, `${url}: kept`);
    }
    // Refusals come from what is kept too.
    const other = await makeTenant(ctx.deps.db);
    await settled();
    await statementsOf(`/api/projects/${other.project.id}/`, member.headers, 403);
    assert.equal(await statementsOf(`/api/projects/${other.project.id}/`, member.headers, 403), 0);
  });

  it('a change made here is seen by the next request at once', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1);
    const url = `/api/projects/${tenant.project.id}/`;
    await statementsOf(url, member.headers);
    await ctx.deps.db
      .deleteFrom('organization_memberships')
      .where('organization_id', '=', tenant.organization.id)
      .where('id', '=', member.membership.id)
      .execute();
    await statementsOf(url, member.headers, 403);
  });

  it('a person read by id, by uuid or by distinct id is one statement', async () => {
    const person = await makePerson(ctx.deps.db, tenant.project.id, {
      distinctIds: ['first', 'second'],
      properties: { plan: 'pro' },
    });
    const base = `/api/projects/${tenant.project.id}/persons/`;
    for (const url of [`${base}${person.id}/`, `${base}${person.uuid}/`, `${base}?distinct_id=second`]) {
      await statementsOf(url, tenant.headers);
      assert.equal(await statementsOf(url, tenant.headers), 1, url);
    }
    const byDistinctId = await counted.inject({
      method: 'GET',
      url: `${base}?distinct_id=second`,
      headers: tenant.headers,
    });
    assert.deepEqual(
      byDistinctId
        .json()
        .results.map((found: { uuid: string; distinct_ids: string[] }) => [found.uuid, found.distinct_ids]),
      [[person.uuid, ['first', 'second']]],
    );
    const retrieved = await counted.inject({ method: 'GET', url: `${base}${person.id}/`, headers: tenant.headers });
    assert.deepEqual(retrieved.json().distinct_ids, ['first', 'second']);
  });

  it('never keeps a key it does not know, nor more than its bound', async () => {
    const changes = ctx.deps.changes;
    assert.ok(changes);
    const cache = await AccessCache.open(changes, { maxEntries: 3 });
    try {
      for (let n = 0; n < 50; n++) {
        const authorization = `Bearer phx_${crypto.randomBytes(20).toString('hex')}`;
        await assert.rejects(
          authorizeRequest(ctx.deps, { authorization, scopes: [], project: String(tenant.project.id) }, cache),
          { status: 401 },
        );
      }
      assert.deepEqual(cache.sizes, { actors: 0, projects: 0, organizations: 0 });
      // Made first: each write here empties the cache.
      const members = [];
      for (let n = 0; n < 5; n++) members.push(await makeTenantMember(ctx.deps.db, tenant, 1));
      for (const member of members) {
        await authorizeRequest(
          ctx.deps,
          { ...bearer(member.key), scopes: [], project: String(tenant.project.id) },
          cache,
        );
      }
      assert.deepEqual(cache.sizes, { actors: 3, projects: 3, organizations: 0 });
    } finally {
      cache.close();
    }
  });
});
