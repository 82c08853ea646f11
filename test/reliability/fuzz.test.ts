// Fuzzing every operation of the OpenAPI document, the property filters and capture: never a 500,
// never a request that hangs, never a changed row on a refused (4xx) request or on a read.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeProject } from '../helpers/factories.ts';
import {
  changedTables,
  fillPath,
  injectWithin,
  loadOperations,
  minimalValue,
  PUBLIC_PATH,
  RequestTimeout,
  resourceOf,
  snapshotDatabase,
  type JsonSchema,
  type Operation,
  type Snapshot,
} from '../helpers/reliability.ts';
import {
  capturePayload,
  encode,
  filterTree,
  gzipBomb,
  jsonBody,
  jsonPaths,
  jsonWith,
  METHOD_NAMED_VALUES,
  nestedFilter,
  prototypeFilter,
  queryString,
  uniqueUuid,
  wideFilter,
  type CapturePayload,
} from './fuzz-arbitraries.ts';
import { bodyIdsOf, buildWorld, CAPTURE_PATHS, captureBatch, type World } from './seed.ts';

// Bounded so the file stays well under a minute; HERD_FUZZ_SCALE=10 for a long campaign.
const SCALE = Number(process.env.HERD_FUZZ_SCALE ?? 1);
// A random seed each run (printed in the summary); HERD_FUZZ_SEED replays one.
const SEED = Number(process.env.HERD_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)), endOnFailure: true, seed: SEED });

const GENERIC_500 = JSON.stringify({
  type: 'server_error',
  code: 'error',
  detail: 'A server error occurred.',
  attr: null,
});

class Fuzzer {
  requests = 0;
  readonly serverErrors: string[] = [];
  readonly hangs: string[] = [];
  readonly rowChanges: string[] = [];
  readonly badEnvelopes: string[] = [];
  #baseline: Snapshot | null = null;
  readonly #ctx: TestContext;
  constructor(ctx: TestContext) {
    this.#ctx = ctx;
  }

  /**
   * One request, judged: the answer is below 500, in time, and a refusal or a read wrote nothing.
   * `rows: false` leaves the rows to one `compareRows` after a run of reads (a snapshot per request
   * costs a sweep of every shard on Citus).
   */
  async send(options: InjectOptions, { rows = true } = {}) {
    const db = this.#ctx.deps.db;
    this.#baseline ??= await snapshotDatabase(db);
    const label = `${options.method} ${String(options.url).slice(0, 160)} ${typeof options.payload === 'string' ? options.payload.slice(0, 160) : ''}`;
    this.requests += 1;
    let res;
    try {
      res = await injectWithin(this.#ctx.app, options, 15_000);
    } catch (error) {
      if (!(error instanceof RequestTimeout)) throw error;
      this.hangs.push(label);
      this.#baseline = await snapshotDatabase(db);
      return null;
    }
    if (res.statusCode >= 500) this.serverErrors.push(`${label} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    // Even a fault tells the client nothing of its cause.
    if (res.statusCode === 500 && res.body !== GENERIC_500)
      this.serverErrors.push(`${label} → a 500 that shows its cause: ${res.body.slice(0, 200)}`);
    if (rows) await this.compareRows(`${label} → ${res.statusCode}`, res.statusCode >= 400 || options.method === 'GET');
    if (res.statusCode >= 400 && !(res.headers['content-type'] ?? '').toString().startsWith('text/html')) {
      const body = safeJson(res.body);
      if (!body || !['type', 'code', 'detail', 'attr'].every((k) => k in body))
        this.badEnvelopes.push(`${label} → ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    return res;
  }

  /** Whether rows changed since the last comparison: recorded when `unexpected` (a refusal, or reads only). */
  async compareRows(label: string, unexpected: boolean) {
    const afterward = await snapshotDatabase(this.#ctx.deps.db);
    const changed = this.#baseline ? changedTables(this.#baseline, afterward) : [];
    if (changed.length > 0 && unexpected) this.rowChanges.push(`${label} changed ${changed.join(', ')}`);
    this.#baseline = afterward;
  }

  /** Where each list stands, so a test judges only the requests it sent. */
  mark() {
    return [this.serverErrors.length, this.hangs.length, this.rowChanges.length, this.badEnvelopes.length];
  }

  assertClean(mark = [0, 0, 0, 0]) {
    assert.deepEqual(this.serverErrors.slice(mark[0]), [], 'no 500');
    assert.deepEqual(this.hangs.slice(mark[1]), [], 'no hung request');
    assert.deepEqual(this.rowChanges.slice(mark[2]), [], 'no row changed by a refused request or a read');
    assert.deepEqual(this.badEnvelopes.slice(mark[3]), [], 'every error in the envelope');
  }
}

function safeJson(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' ? value : null;
  } catch {
    return null;
  }
}

describe('fuzzing', () => {
  let ctx: TestContext;
  let operations: Operation[];
  let doc: JsonSchema;
  let world: World;
  let fuzzer: Fuzzer;
  const urlOf = (op: Operation) =>
    fillPath(
      op.path,
      Object.fromEntries(op.pathParams.map((p) => [p, world.idsA[resourceOf(op.path, p)]?.[0] ?? '1'])),
    );
  const isCapture = (op: Operation) => CAPTURE_PATHS.some((p) => p.replace(/\/$/, '') === op.path.replace(/\/$/, ''));
  const personsList = () => `/api/projects/${world.a.project.id}/persons/`;

  before(async () => {
    ctx = await setupTestApp();
    ({ operations, doc } = await loadOperations(ctx.app));
    world = await buildWorld(ctx.app, ctx.deps);
    fuzzer = new Fuzzer(ctx);
  });
  after(() => ctx.close());

  it('survives hostile query strings on every GET operation', async () => {
    const mark = fuzzer.mark();
    const targets = operations.filter((op) => op.method === 'GET' && !PUBLIC_PATH.test(op.path));
    assert.ok(targets.length > 0);
    const target = fc
      .constantFrom(...targets)
      .chain((op) => fc.tuple(fc.constant(op), queryString(op.query.map((q) => q.name))));
    await fc.assert(
      fc.asyncProperty(target, async ([op, query]) => {
        await fuzzer.send({ method: 'GET', url: `${urlOf(op)}?${query}`, headers: world.a.headers });
      }),
      runs(400),
    );
    fuzzer.assertClean(mark);
  });

  it('survives hostile JSON bodies on every POST, PUT and PATCH operation', async () => {
    const mark = fuzzer.mark();
    const targets = operations.filter(
      (op) => ['POST', 'PUT', 'PATCH'].includes(op.method) && !isCapture(op) && !PUBLIC_PATH.test(op.path),
    );
    assert.ok(targets.length > 0);
    const target = fc.constantFrom(...targets).chain((op) => {
      const valid = op.body ? minimalValue(doc, op.body, bodyIdsOf(world.idsA, world.distinctIdsA), '', true) : {};
      return fc.tuple(fc.constant(op), jsonBody(valid));
    });
    await fc.assert(
      fc.asyncProperty(target, async ([op, body]) => {
        await fuzzer.send({
          method: op.method,
          url: urlOf(op),
          headers: { ...world.a.headers, 'content-type': 'application/json' },
          payload: body,
        });
      }),
      runs(400),
    );
    fuzzer.assertClean(mark);
  });

  it('answers a valid request with any one value replaced by an object holding method names, never with a 500', async (t) => {
    // JSON can carry {"toString": ""}: code that turns a parsed value into text with String() or a
    // template literal throws on it. Every place of a valid request is tried, not a random few.
    const mark = fuzzer.mark();
    const requests: InjectOptions[] = [];
    const replacing = (valid: unknown, build: (text: string) => InjectOptions, under: (string | number)[] = []) => {
      const paths = jsonPaths(valid).filter((path) => under.every((part, i) => path[i] === part));
      for (const path of paths)
        for (const value of METHOD_NAMED_VALUES) requests.push(build(jsonWith(valid, path, value)));
    };
    const parsedExample = (example: unknown) => {
      try {
        return typeof example === 'string' ? JSON.parse(example) : example;
      } catch {
        return undefined;
      }
    };
    // Each JSON parameter gets every example the reference gives a parameter of its name, on any operation.
    const examples = new Map<string, Set<string>>();
    for (const q of operations.flatMap((o) => o.query)) {
      const example = parsedExample(q.example);
      if (example !== null && typeof example === 'object')
        examples.set(q.name, (examples.get(q.name) ?? new Set()).add(JSON.stringify(example)));
    }
    for (const op of operations.filter((o) => o.method === 'GET' && !PUBLIC_PATH.test(o.path))) {
      const required = op.query
        .filter((q) => q.required)
        .map((q) => `&${q.name}=${encodeURIComponent(String(minimalValue(doc, q.schema, {}, q.name)))}`)
        .join('');
      for (const q of op.query) {
        for (const example of examples.get(q.name) ?? []) {
          replacing(JSON.parse(example), (text) => ({
            method: 'GET',
            url: `${urlOf(op)}?${q.name}=${encode(text)}${required}`,
            headers: world.a.headers,
          }));
        }
      }
    }
    const jsonHeaders = { ...world.a.headers, 'content-type': 'application/json' };
    for (const op of operations.filter(
      (o) => ['POST', 'PUT', 'PATCH'].includes(o.method) && o.body && !isCapture(o) && !PUBLIC_PATH.test(o.path),
    )) {
      const valid = minimalValue(doc, op.body!, bodyIdsOf(world.idsA, world.distinctIdsA), '', true);
      replacing(valid, (payload) => ({ method: op.method, url: urlOf(op), headers: jsonHeaders, payload }));
    }
    const token = world.a.project.api_token;
    const properties = {
      $anon_distinct_id: 'method-anon',
      alias: 'method-alias',
      $set: { plan: 'pro' },
      $set_once: { first: 1 },
      $unset: ['gone'],
      $groups: { company: 'acme' },
      $group_type: 'company',
      $group_key: 'acme',
      $group_set: { size: 1 },
      $current_url: 'https://example.com/',
      $screen_name: 'home',
      $os_name: 'iOS',
      $process_person_profile: true,
      $ignore_sent_at: true,
      $ip: '192.0.2.1',
    };
    const event = {
      distinct_id: 'method-user',
      uuid: uniqueUuid(),
      timestamp: new Date().toISOString(),
      $set: { a: 1 },
      $set_once: { b: 1 },
      $unset: ['c'],
      properties,
    };
    const names = [
      '$identify',
      '$create_alias',
      '$merge_dangerously',
      '$groupidentify',
      '$pageview',
      '$screen',
      '$set',
      'survey shown',
      'custom',
    ];
    // Every place of one event; for the other names, which differ in how they read the properties, the properties.
    for (const name of names) {
      const batch = { api_key: token, sent_at: new Date().toISOString(), batch: [{ ...event, event: name }] };
      replacing(
        batch,
        (payload) => ({ method: 'POST', url: '/batch/', headers: { 'content-type': 'application/json' }, payload }),
        name === names[0] ? [] : ['batch', 0, 'properties'],
      );
    }
    replacing({ ...event, event: '$identify', api_key: token, offset: 5 }, (payload) => ({
      method: 'POST',
      url: '/i/v0/e/',
      headers: { 'content-type': 'application/json' },
      payload,
    }));
    // The reads are judged for rows together, each request that may write on its own.
    const reads = requests.filter((request) => request.method === 'GET');
    for (const request of reads) await fuzzer.send(request, { rows: false });
    await fuzzer.compareRows(`${reads.length} reads with one value replaced`, true);
    for (const request of requests.filter((r) => r.method !== 'GET')) await fuzzer.send(request);
    t.diagnostic(`${requests.length} requests (${reads.length} reads), each a valid one with one value replaced`);
    assert.ok(requests.length > 1000, `only ${requests.length} requests were built`);
    fuzzer.assertClean(mark);
  });

  it('answers every property-filter tree with 200 or a 400 naming properties', async (t) => {
    const mark = fuzzer.mark();
    const filtered = operations.filter((op) => op.method === 'GET' && op.query.some((q) => q.name === 'properties'));
    const urls =
      filtered.length > 0
        ? filtered.map((op) => ({ url: urlOf(op), strict: /\/persons\/$/.test(op.path), op }))
        : [{ url: personsList(), strict: true, op: null }];
    t.diagnostic(`filter targets: ${urls.map((u) => u.url).join(', ')}`);
    const misnamed: string[] = [];
    const text = fc.oneof(
      { weight: 5, arbitrary: filterTree.map((tree) => JSON.stringify(tree) ?? 'null') },
      { weight: 1, arbitrary: prototypeFilter },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...urls), text, async (target, filter) => {
        const required = (target.op?.query ?? []).filter((q) => q.required && q.name !== 'properties');
        const extra = required
          .map((q) => `&${q.name}=${encodeURIComponent(String(minimalValue(doc, q.schema, {}, q.name)))}`)
          .join('');
        const res = await fuzzer.send({
          method: 'GET',
          url: `${target.url}?properties=${encode(filter)}${extra}`,
          headers: world.a.headers,
        });
        if (res && filtered.length > 0 && target.strict && res.statusCode === 400 && res.json().attr !== 'properties')
          misnamed.push(`${filter.slice(0, 120)} → ${res.body}`);
        if (res && filtered.length > 0 && target.strict && ![200, 400].includes(res.statusCode))
          misnamed.push(`${filter.slice(0, 120)} → ${res.statusCode}`);
      }),
      runs(300),
    );
    fuzzer.assertClean(mark);
    assert.deepEqual(misnamed, []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is not polluted');
  });

  it('enforces the filter limits: deeper than 20 or more than 10 000 values is a 400 on properties', async () => {
    const mark = fuzzer.mark();
    const get = (filter: unknown) =>
      fuzzer.send({
        method: 'GET',
        url: `${personsList()}?properties=${encodeURIComponent(JSON.stringify(filter))}`,
        headers: world.a.headers,
      });
    for (const filter of [
      nestedFilter(25),
      nestedFilter(200),
      wideFilter(12_000),
      Array.from({ length: 11 }, () => wideFilter(1000)[0]),
    ]) {
      const res = await get(filter);
      assert.equal(res?.statusCode, 400, JSON.stringify(filter).slice(0, 100));
      assert.equal(res?.json().attr, 'properties');
    }
    for (const filter of [nestedFilter(5), wideFilter(500)]) {
      const res = await get(filter);
      assert.equal(res?.statusCode, 200, res?.body);
    }
    fuzzer.assertClean(mark);
  });

  it('treats filter values and search terms as data: no SQL, no LIKE wildcards', async () => {
    // A project of its own: the fuzzers before may have deleted A's persons or given them any e-mail.
    const project = await makeProject(ctx.deps.db, world.a.organization, 'filters as data');
    // Through the fuzzer, so its row baseline includes these writes (a 200 POST may write).
    const captured = await fuzzer.send({
      method: 'POST',
      url: '/batch/',
      payload: captureBatch(project.api_token, [
        { event: '$identify', distinct_id: 'data-1', properties: { $set: { email: 'ada@example.com', name: 'Ada' } } },
        { event: '$identify', distinct_id: 'data-2', properties: { $set: { email: 'bob@example.org', name: 'Bob' } } },
      ]),
    });
    assert.equal(captured?.statusCode, 200, captured?.body);
    const mark = fuzzer.mark();
    const list = async (query: string) =>
      fuzzer.send({ method: 'GET', url: `/api/projects/${project.id}/persons/?${query}`, headers: world.a.headers });
    const all = await list('');
    assert.equal(all?.json().count, 2, 'the project has persons to leak');
    const filters = [
      { key: 'email', value: "' OR 1=1 --", operator: 'exact' },
      { key: 'email', value: "x' OR '1'='1", operator: 'icontains' },
      { key: 'email', value: '%', operator: 'icontains' },
      { key: 'email', value: '_', operator: 'icontains' },
      { key: 'email', value: '.*', operator: 'exact' },
    ];
    for (const filter of filters) {
      const res = await list(`properties=${encode(JSON.stringify([filter]))}`);
      assert.equal(res?.statusCode, 200, res?.body);
      assert.equal(res?.json().count, 0, JSON.stringify(filter));
    }
    for (const term of ['%', '_', "' OR 1=1 --", '%@%']) {
      const res = await list(`search=${encode(term)}`);
      assert.equal(res?.statusCode, 200, res?.body);
      assert.equal(res?.json().count, 0, `search ${term}`);
    }
    fuzzer.assertClean(mark);
  });

  it('refuses broken capture payloads whole and never answers 500', async (t) => {
    const mark = fuzzer.mark();
    const statuses: Record<string, number> = {};
    const unexpected: string[] = [];
    const send = async (path: string, payload: CapturePayload) => {
      const res = await fuzzer.send({ method: 'POST', url: path, headers: payload.headers, payload: payload.body });
      if (!res) return;
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      if (![200, 400, 401, 413, 415].includes(res.statusCode))
        unexpected.push(`${payload.label} ${path} → ${res.statusCode} ${res.body.slice(0, 120)}`);
    };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...CAPTURE_PATHS),
        capturePayload(world.a.project.api_token),
        async (path, payload) => {
          await send(path, payload);
        },
      ),
      runs(250),
    );
    const bomb = await fuzzer.send({
      method: 'POST',
      url: '/batch/',
      headers: gzipBomb(world.a.project.api_token).headers,
      payload: gzipBomb(world.a.project.api_token).body,
    });
    assert.equal(bomb?.statusCode, 413, 'a gzip bomb is refused as too large');
    t.diagnostic(`capture statuses: ${JSON.stringify(statuses)}`);
    fuzzer.assertClean(mark);
    assert.deepEqual(unexpected, []);
  });

  it('answers the corpus of inputs that once answered 500 without a 500', async () => {
    const mark = fuzzer.mark();
    const token = world.a.project.api_token;
    const json = { 'content-type': 'application/json' };
    const filter = (f: unknown) => `${personsList()}?properties=${encode(JSON.stringify(f))}`;
    const requests: InjectOptions[] = [
      ...['offset=Infinity', 'offset=1e300', 'offset=99999999999999999999', 'limit=1e300'].flatMap((q) =>
        ['/api/organizations/', '/api/projects/', personsList()].map((path) => ({
          method: 'GET' as const,
          url: `${path}?${q}`,
          headers: world.a.headers,
        })),
      ),
      { method: 'GET', url: filter([{ key: 'email', value: '\u0000', operator: 'exact' }]), headers: world.a.headers },
      { method: 'GET', url: filter([{ key: 'a\u0000', value: 'x', operator: 'icontains' }]), headers: world.a.headers },
      { method: 'GET', url: filter([{ key: 'email', value: '(', operator: 'regex' }]), headers: world.a.headers },
      {
        method: 'POST',
        url: '/capture/',
        headers: json,
        payload: JSON.stringify({ api_key: token, event: 'x'.repeat(1_000_000), distinct_id: 'giant', properties: {} }),
      },
      {
        method: 'POST',
        url: '/capture/',
        headers: json,
        payload: JSON.stringify({
          api_key: token,
          event: crypto.randomBytes(3000).toString('hex'),
          distinct_id: 'long',
          properties: {},
        }),
      },
      {
        method: 'POST',
        url: '/capture/',
        headers: json,
        payload: JSON.stringify({
          api_key: token,
          event: 'nul\u0000',
          distinct_id: 'nul\u0000',
          properties: { 'k\u0000': 'v\u0000' },
        }),
      },
      ...[`${personsList()}bulk_delete/`, `/api/projects/${world.a.project.id}/cohorts/`].map((url) => ({
        method: 'POST' as const,
        url,
        headers: { ...world.a.headers, ...json },
        payload: `${'['.repeat(3500)}${']'.repeat(3500)}`,
      })),
    ];
    for (const request of requests) await fuzzer.send(request);
    fuzzer.assertClean(mark);
  });

  it('refuses oversized bodies (413), foreign content types and mangled paths cleanly', async () => {
    const mark = fuzzer.mark();
    const token = world.a.project.api_token;
    const org = `/api/organizations/${world.a.organization.id}`;
    const big = (bytes: number) => JSON.stringify({ name: 'x'.repeat(bytes) });
    const expect413 = [
      {
        method: 'POST' as const,
        url: `${org}/roles/`,
        payload: big(1024 * 1024 + 10),
        headers: { ...world.a.headers, 'content-type': 'application/json' },
      },
      {
        method: 'POST' as const,
        url: '/capture/',
        payload: JSON.stringify({
          api_key: token,
          event: 'big',
          distinct_id: 'big',
          properties: { x: 'x'.repeat(2 * 1024 * 1024 + 10) },
        }),
        headers: { 'content-type': 'application/json' },
      },
      {
        method: 'POST' as const,
        url: '/batch/',
        payload: JSON.stringify({
          api_key: token,
          batch: [{ event: 'big', distinct_id: 'big', properties: { x: 'x'.repeat(20 * 1024 * 1024 + 10) } }],
        }),
        headers: { 'content-type': 'application/json' },
      },
    ];
    for (const request of expect413) {
      const res = await fuzzer.send(request);
      assert.equal(res?.statusCode, 413, `${request.url}: ${res?.body.slice(0, 200)}`);
    }
    for (const type of [
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json; charset=utf-16',
      'application/x-www-form-urlencoded',
    ]) {
      const res = await fuzzer.send({
        method: 'POST',
        url: `${org}/roles/`,
        payload: 'name=x',
        headers: { ...world.a.headers, 'content-type': type },
      });
      assert.ok(res && res.statusCode >= 400 && res.statusCode < 500, `${type} → ${res?.statusCode}`);
    }
    const mangled = [
      '/api/projects/..%2F..%2Fetc%2Fpasswd/persons/',
      `/api/organizations/%00/`,
      `/api/organizations/${'a'.repeat(5000)}/`,
      `${org}/roles/%E0%A4%A/`,
      `/api/projects/${world.a.project.id}/persons/%F0%9F%98%80/`,
      `/api/projects/${world.a.project.id}/persons/-1/`,
      `/api/projects/${world.a.project.id}/persons/1e400/`,
      '/api/projects/99999999999999999999/persons/',
      '/api//organizations//',
      '/%2e%2e/%2e%2e/etc/passwd',
    ];
    for (const url of mangled) {
      const res = await fuzzer.send({ method: 'GET', url, headers: world.a.headers });
      assert.ok(res && res.statusCode >= 400 && res.statusCode < 500, `${url.slice(0, 80)} → ${res?.statusCode}`);
    }
    fuzzer.assertClean(mark);
  });

  it('prints the summary', (t) => {
    const summary = `fuzz summary (seed ${SEED}): ${fuzzer.requests} requests fuzzed, ${fuzzer.serverErrors.length} answered 500, ${fuzzer.hangs.length} hung, ${fuzzer.rowChanges.length} changed rows when refused`;
    t.diagnostic(summary);
    console.log(summary);
    // Each test above judged its own requests; this one only reports.
    assert.ok(fuzzer.requests > 0);
  });
});
