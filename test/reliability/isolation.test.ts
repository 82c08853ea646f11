// The isolation matrix: every operation of the OpenAPI document that names an organization, a
// project or an object in its path, called by another tenant (and by a key limited to another
// project), answers 403 or 404 and leaves every table exactly as it was.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  changedTables,
  CONTAINER_RESOURCES,
  fillPath,
  injectWithin,
  loadOperations,
  minimalValue,
  PUBLIC_PATH,
  resourceOf,
  snapshotDatabase,
  snapshotTenant,
  type JsonSchema,
  type Operation,
} from '../helpers/reliability.ts';
import { bodyIdsOf, buildWorld, type ResourceIds, type World } from './seed.ts';

interface Case {
  scenario: string;
  op: Operation;
  url: string;
  headers: Record<string, string>;
  payload?: unknown;
}

/**
 * Whether `text` holds `marker` as a whole token, not inside a longer one: B's own users are
 * `user-<hex>@example.com`, and one whose hex ends in "a2" is no leak of A's "a2@example.com".
 */
function showsToken(text: string, marker: string): boolean {
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.%+-])${escaped}(?![\\w])`).test(text);
}

/** One URL per candidate of the first multi-valued parameter (persons: integer id and uuid). */
function urlsFor(op: Operation, pick: (resource: string) => string[]): string[] {
  let variants: Record<string, string>[] = [{}];
  for (const param of op.pathParams) {
    const candidates = pick(resourceOf(op.path, param));
    const values = variants.length === 1 ? candidates : candidates.slice(0, 1);
    variants = variants.flatMap((v) => values.map((value) => ({ ...v, [param]: value })));
  }
  return variants.map((values) => fillPath(op.path, values));
}

function queryFor(doc: JsonSchema, op: Operation, bodyIds: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const q of op.query.filter((p) => p.required)) {
    const value = minimalValue(doc, q.schema, bodyIds, q.name);
    params.set(q.name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

function casesOf(doc: JsonSchema, operations: Operation[], world: World): Case[] {
  const cases: Case[] = [];
  const from = (ids: ResourceIds) => (resource: string) => ids[resource] ?? ['1'];
  const mixed = (resource: string) =>
    CONTAINER_RESOURCES.has(resource) ? from(world.idsB)(resource) : from(world.idsA)(resource);
  const add = (
    scenario: string,
    op: Operation,
    pick: (r: string) => string[],
    ids: ResourceIds,
    headers: Record<string, string>,
  ) => {
    const bodyIds = bodyIdsOf(ids, world.distinctIdsA);
    const payload = ['POST', 'PUT', 'PATCH'].includes(op.method)
      ? op.body
        ? minimalValue(doc, op.body, bodyIds, '', true)
        : {}
      : undefined;
    for (const url of urlsFor(op, pick))
      cases.push({ scenario, op, url: url + queryFor(doc, op, bodyIds), headers, payload });
  };
  for (const op of operations) {
    if (op.pathParams.length === 0 || PUBLIC_PATH.test(op.path)) continue;
    const resources = op.pathParams.map((param) => resourceOf(op.path, param));
    add("B's key, A's ids", op, from(world.idsA), world.idsA, world.b.headers);
    if (resources.some((r) => !CONTAINER_RESOURCES.has(r)) && resources.some((r) => CONTAINER_RESOURCES.has(r))) {
      add("B's key, B's container, A's objects", op, mixed, world.idsA, world.b.headers);
    }
    if (resources.some((r) => CONTAINER_RESOURCES.has(r))) {
      add("A1-scoped key, A2's ids", op, from(world.idsA2), world.idsA2, world.scopedHeaders);
    }
  }
  return cases;
}

describe('isolation matrix', () => {
  let ctx: TestContext;
  let operations: Operation[];
  let doc: JsonSchema;
  let world: World;

  before(async () => {
    ctx = await setupTestApp();
    ({ operations, doc } = await loadOperations(ctx.app));
    world = await buildWorld(ctx.app, ctx.deps);
  });
  after(() => ctx.close());

  it('the tenant passes authorization on its own objects on every GET route (the matrix would prove nothing otherwise)', async (t) => {
    const failures: string[] = [];
    let checked = 0;
    for (const op of operations.filter(
      (o) => o.method === 'GET' && o.pathParams.length > 0 && !PUBLIC_PATH.test(o.path),
    )) {
      const resources = op.pathParams.map((p) => resourceOf(op.path, p));
      if (!resources.every((r) => world.idsA[r])) continue;
      if (op.query.some((q) => q.required)) continue;
      for (const [headers, ids] of [
        [world.a.headers, world.idsA],
        [world.scopedHeaders, world.idsA],
      ] as const) {
        if (headers === world.scopedHeaders && !resources.includes('projects')) continue;
        const url = urlsFor(op, (r) => ids[r])[0];
        const res = await injectWithin(ctx.app, { method: 'GET', url, headers });
        checked += 1;
        // Past authorization: 200, or a 400 on a parameter the view needs (analytics) — never 401/403/404.
        if (res.statusCode !== 200 && res.statusCode !== 400)
          failures.push(`GET ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
      }
    }
    t.diagnostic(`isolation positive control: ${checked} own-tenant reads`);
    assert.ok(checked > 0);
    assert.deepEqual(failures, []);
  });

  it('refuses every parameterised route to another tenant and changes no row', async (t) => {
    const cases = casesOf(doc, operations, world);
    assert.ok(cases.length > 0, 'the OpenAPI document lists routes with path parameters');
    let baseline = await snapshotDatabase(ctx.deps.db);
    const failures: string[] = [];
    const statuses: Record<string, number> = {};
    for (const c of cases) {
      const res = await injectWithin(ctx.app, {
        method: c.op.method,
        url: c.url,
        headers: c.headers,
        payload: c.payload as object,
      });
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      const label = `[${c.scenario}] ${c.op.method} ${c.url}`;
      if (res.statusCode !== 403 && res.statusCode !== 404)
        failures.push(`${label} → ${res.statusCode} ${res.body.slice(0, 300)}`);
      const afterward = await snapshotDatabase(ctx.deps.db);
      const changed = changedTables(baseline, afterward);
      if (changed.length > 0) {
        failures.push(`${label} changed rows of ${changed.join(', ')}`);
        baseline = afterward;
      }
    }
    const routes = new Set(cases.map((c) => `${c.op.method} ${c.op.path}`));
    t.diagnostic(
      `isolation: ${cases.length} requests over ${routes.size} operations; statuses ${JSON.stringify(statuses)}; leaks ${failures.length}`,
    );
    t.diagnostic(`isolation seeded: ${world.seeded.join('; ') || 'management objects only'}`);
    for (const route of [...routes].sort()) t.diagnostic(`isolation covered: ${route}`);
    assert.deepEqual(failures, []);
  });

  it("B's own routes, given references to A's objects, reveal and change nothing of A", async (t) => {
    const markers = [
      ...world.distinctIdsA,
      'a1@example.com',
      'a2@example.com',
      world.aMember.uuid,
      world.aMember.email,
      world.a.organization.id,
      ...(world.idsA.persons?.slice(1) ?? []),
      ...(world.idsA2.persons?.slice(1) ?? []),
      ...(world.idsA.roles ?? []),
      ...(world.idsA.role_memberships ?? []),
    ];
    const refs: Record<string, unknown> = {
      ...bodyIdsOf(world.idsA, world.distinctIdsA),
      search: world.distinctIdsA[0],
      email: 'a1@example.com',
      key: 'email',
      value: 'a1',
      properties: JSON.stringify([{ type: 'cohort', key: 'id', value: Number(world.idsA.cohorts?.[0] ?? 1) }]),
    };
    const tenantA = () => snapshotTenant(ctx.deps.db, world.a.organization.id, [world.a.project.id, world.a2.id]);
    const before = await tenantA();
    const order = { GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 } as const;
    const targets = operations
      .filter(
        (op) =>
          !PUBLIC_PATH.test(op.path) &&
          (op.pathParams.length === 0 || op.pathParams.some((p) => CONTAINER_RESOURCES.has(resourceOf(op.path, p)))),
      )
      .sort((x, y) => order[x.method] - order[y.method]);
    const failures: string[] = [];
    for (const op of targets) {
      const query = new URLSearchParams();
      for (const q of op.query) {
        if (q.name in refs)
          query.set(q.name, typeof refs[q.name] === 'string' ? String(refs[q.name]) : JSON.stringify(refs[q.name]));
        else if (q.required) query.set(q.name, String(minimalValue(doc, q.schema, {}, q.name)));
      }
      const url = `${urlsFor(op, (r) => world.idsB[r] ?? ['1'])[0]}?${query}`;
      // Bodies reference A's objects by id; e-mails in a body would create users, not look them up.
      const bodyRefs = bodyIdsOf(world.idsA, world.distinctIdsA);
      const payload = ['POST', 'PUT', 'PATCH'].includes(op.method)
        ? op.body
          ? minimalValue(doc, op.body, bodyRefs, '', true)
          : {}
        : undefined;
      const res = await injectWithin(ctx.app, {
        method: op.method,
        url,
        headers: world.b.headers,
        payload: payload as object,
      });
      if (res.statusCode >= 500) failures.push(`${op.method} ${url} → ${res.statusCode}`);
      const leaked = markers.filter((m) => showsToken(res.body, m));
      if (leaked.length > 0) failures.push(`${op.method} ${url} → ${res.statusCode} shows ${leaked.join(', ')}`);
      const changed = changedTables(before, await tenantA());
      if (changed.length > 0)
        failures.push(`${op.method} ${url} → ${res.statusCode} changed A's ${changed.join(', ')}`);
      if (changed.length > 0) break;
    }
    t.diagnostic(
      `isolation by reference: ${targets.length} of B's own operations given A's ids; findings ${failures.length}`,
    );
    assert.deepEqual(failures, []);
  });

  it('every parameterised route but the public documentation needs credentials', async () => {
    const failures: string[] = [];
    for (const op of operations.filter((o) => o.pathParams.length > 0 && !PUBLIC_PATH.test(o.path))) {
      const url = fillPath(
        op.path,
        Object.fromEntries(op.pathParams.map((p) => [p, world.idsA[resourceOf(op.path, p)]?.[0] ?? '1'])),
      );
      const res = await injectWithin(ctx.app, {
        method: op.method,
        url,
        payload: ['POST', 'PUT', 'PATCH'].includes(op.method) ? {} : undefined,
      });
      // Validation (400) or an unknown id (404) may answer before authentication; data never does.
      if (res.statusCode < 400 || res.statusCode >= 500) failures.push(`${op.method} ${url} → ${res.statusCode}`);
    }
    assert.deepEqual(failures, []);
  });

  it('a key of another organization cannot list or read the tenant through collection routes', async () => {
    const failures: string[] = [];
    for (const op of operations.filter(
      (o) => o.method === 'GET' && o.pathParams.length === 0 && !PUBLIC_PATH.test(o.path),
    )) {
      const res = await injectWithin(ctx.app, { method: 'GET', url: op.path, headers: world.b.headers });
      const text = res.body;
      for (const [resource, values] of Object.entries(world.idsA)) {
        // A's own key id is B's concern only as "not listed"; ids that are small integers collide.
        const leaked = values.filter((v) => !/^\d{1,4}$/.test(v) && text.includes(v));
        if (leaked.length > 0) failures.push(`GET ${op.path} shows A's ${resource} ${leaked.join(', ')}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
