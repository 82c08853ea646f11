// GET /events/ and /events/:uuid/: the legacy event shape, every filter, keyset paging that holds
// while new events arrive, CSV with formulas neutralized, the query:read scope, tenancy, bad inputs.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { eventsPageSql } from '../../src/analytics/events-list.query.ts';
import type { JsonObject } from '../../src/db/schema.ts';
import {
  makeEvent,
  queryString,
  sendJson,
  setupAnalytics,
  type AnalyticsContext,
  type ViewResponse,
} from '../helpers/analytics-factories.ts';
import { EVERY_SHARD } from '../helpers/citus.ts';
import { makeKey, makePerson, makeTenant, bearer, type TestPerson } from '../helpers/factories.ts';
import { post } from './capture-helpers.ts';
import { eventKey, personlessKeySql } from '../../src/db/person-key.ts';

interface WireEvent {
  id: string;
  distinct_id: string;
  event: string;
  timestamp: string;
  properties: JsonObject;
  person: { is_identified: boolean; distinct_ids: string[]; properties: JsonObject } | null;
  elements: unknown[];
  elements_chain: string;
}

describe('the events list', () => {
  let a: AnalyticsContext;
  let ada: TestPerson;
  let bob: TestPerson;
  let base: string;
  const list = (params: Record<string, unknown> = {}, headers = a.tenant.headers): Promise<ViewResponse> =>
    sendJson(a.ctx.app, 'GET', `${base}/${queryString(params)}`, headers);
  const names = (response: ViewResponse) => (response.body.results as WireEvent[]).map((event) => event.event);

  /** Every page of a listing, following `next`, with events captured by `between` before each next page. */
  async function walk(params: Record<string, unknown>, between?: (page: number) => Promise<void>) {
    const seen: WireEvent[] = [];
    let response = await list(params);
    for (let page = 0; ; page++) {
      assert.equal(response.status, 200, response.text);
      seen.push(...(response.body.results as WireEvent[]));
      if (response.body.next === null) return seen;
      await between?.(page);
      response = await a.follow(response.body.next);
    }
  }

  before(async () => {
    a = await setupAnalytics('2024-01-20T12:00:00Z');
    base = `/api/projects/${a.teamId}/events`;
    const db = a.ctx.deps.db;
    ada = await makePerson(db, a.teamId, {
      distinctIds: ['ada', 'ada-phone'],
      properties: { email: 'ada@example.com', name: 'Ada', plan: 'pro', secret: 'kept out' },
    });
    bob = await makePerson(db, a.teamId, { distinctIds: ['bob'], properties: { plan: 'free' } });
    await makeEvent(db, a.teamId, ada, '$pageview', '2024-01-10T10:00:00Z', { $browser: 'Firefox', n: 1 });
    await makeEvent(db, a.teamId, ada, 'signed up', '2024-01-11T10:00:00Z', { plan: 'pro' });
    await makeEvent(db, a.teamId, { ...ada, distinctId: 'ada-phone' }, '$pageview', '2024-01-12T10:00:00Z', {
      $browser: 'Safari',
      n: 5,
    });
    await makeEvent(db, a.teamId, bob, '$pageview', '2024-01-13T10:00:00Z', { $browser: 'Chrome', n: 9 });
    await makeEvent(db, a.teamId, bob, 'purchase', '2024-01-14T10:00:00.123456Z', { amount: 12 });
  });
  after(() => a.ctx.close());

  it('lists the events newest first in the platform shape, with the person in brief', async () => {
    const response = await list();
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(Object.keys(response.body).sort(), ['next', 'results']);
    assert.equal(response.body.next, null);
    assert.deepEqual(names(response), ['purchase', '$pageview', '$pageview', 'signed up', '$pageview']);
    const [purchase, , safari] = response.body.results as WireEvent[];
    assert.match(purchase.id, /^[0-9a-f-]{36}$/);
    assert.equal(purchase.timestamp, '2024-01-14T10:00:00.123Z');
    assert.deepEqual(purchase.properties, { amount: 12 });
    assert.deepEqual(purchase.elements, []);
    assert.equal(purchase.elements_chain, '');
    assert.deepEqual(purchase.person, { is_identified: false, distinct_ids: ['bob'], properties: {} });
    assert.equal(safari.distinct_id, 'ada-phone');
    assert.deepEqual(safari.person, {
      is_identified: false,
      distinct_ids: ['ada'],
      properties: { email: 'ada@example.com', name: 'Ada' },
    });
  });

  it('retrieves one event by uuid, and 404s another or a foreign one, 400s a non-uuid', async () => {
    const [first] = (await list()).body.results as WireEvent[];
    const one = await sendJson(a.ctx.app, 'GET', `${base}/${first.id}/`, a.tenant.headers);
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(one.body, first);
    const missing = await sendJson(a.ctx.app, 'GET', `${base}/${crypto.randomUUID()}/`, a.tenant.headers);
    assert.equal(missing.status, 404);
    const bad = await sendJson(a.ctx.app, 'GET', `${base}/not-a-uuid/`, a.tenant.headers);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.attr, 'uuid');
  });

  it('retrieves an event by its UUIDv7 near the time it carries, and far from it', async () => {
    const v7 = (at: string) => {
      const hex = new Date(at).getTime().toString(16).padStart(12, '0');
      return `${hex.slice(0, 8)}-${hex.slice(8)}-7abc-8def-${crypto.randomBytes(6).toString('hex')}`;
    };
    const db = a.ctx.deps.db;
    const near = v7('2024-01-09T10:00:00Z');
    const far = v7('2024-01-09T10:00:00Z');
    for (const [uuid, timestamp] of [
      [near, '2024-01-09T09:59:00Z'],
      [far, '2021-06-01T00:00:00Z'],
    ])
      await db
        .insertInto('events')
        .values({
          team_id: a.teamId,
          uuid,
          event: 'made',
          distinct_id: 'v7',
          person_key: eventKey(null, 'v7'),
          properties: '{}',
          person_properties: '{}',
          timestamp: new Date(timestamp),
        })
        .execute();
    for (const [uuid, timestamp] of [
      [near, '2024-01-09T09:59:00.000Z'],
      [far, '2021-06-01T00:00:00.000Z'],
    ]) {
      const one = await sendJson(a.ctx.app, 'GET', `${base}/${uuid.toUpperCase()}/`, a.tenant.headers);
      assert.equal(one.status, 200, one.text);
      assert.equal(one.body.id, uuid);
      assert.equal(one.body.timestamp, timestamp);
      assert.equal(one.body.person, null);
    }
    await db.deleteFrom('events').where('team_id', '=', a.teamId).where('distinct_id', '=', 'v7').execute();
  });

  it('filters by event, distinct id, person, properties and time', async () => {
    assert.deepEqual(names(await list({ event: '$pageview' })), ['$pageview', '$pageview', '$pageview']);
    assert.deepEqual(names(await list({ distinct_id: 'ada-phone' })), ['$pageview']);
    // The person's events under every one of its distinct ids.
    assert.deepEqual(names(await list({ person_id: String(ada.id) })), ['$pageview', 'signed up', '$pageview']);
    assert.deepEqual(names(await list({ person_id: ada.uuid })), ['$pageview', 'signed up', '$pageview']);
    assert.deepEqual((await list({ person_id: '999999999' })).body.results, []);
    // Without a type a filter tests the event's properties; `person` the person's as the event stored them.
    assert.deepEqual(names(await list({ properties: [{ key: '$browser', value: 'Safari' }] })), ['$pageview']);
    assert.deepEqual(names(await list({ properties: [{ key: 'n', value: 4, operator: 'gt' }] })), [
      '$pageview',
      '$pageview',
    ]);
    assert.deepEqual(names(await list({ properties: [{ key: 'plan', value: 'free', type: 'person' }] })), [
      'purchase',
      '$pageview',
    ]);
    assert.deepEqual(
      names(
        await list({
          properties: {
            type: 'OR',
            values: [
              { key: 'amount', operator: 'is_set' },
              { key: 'plan', value: 'pro' },
            ],
          },
        }),
      ),
      ['purchase', 'signed up'],
    );
    assert.deepEqual(names(await list({ after: '2024-01-12T10:00:00Z', before: '2024-01-14T10:00:00Z' })), [
      '$pageview',
    ]);
    assert.deepEqual(names(await list({ after: '-8d' })), ['purchase', '$pageview']);
    assert.equal((await list({ after: 'all' })).body.results.length, 5);
    assert.deepEqual(names(await list({ event: '$pageview', person_id: String(bob.id) })), ['$pageview']);
  });

  it('filters by a cohort of the persons', async () => {
    const cohort = await sendJson(a.ctx.app, 'POST', `/api/projects/${a.teamId}/cohorts/`, a.tenant.headers, {
      name: 'pro',
      filters: { properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] } },
    });
    assert.equal(cohort.status, 201, cohort.text);
    const response = await list({ properties: [{ key: 'id', value: cohort.body.id, type: 'cohort' }] });
    assert.deepEqual(names(response), ['$pageview', 'signed up', '$pageview']);
  });

  it("lists the person's anonymous events once the id is linked to it", async () => {
    const capture = async (...batch: object[]) => {
      const response = await post(a.ctx.app, '/batch/', { api_key: a.tenant.project.api_token, batch });
      assert.equal(response.statusCode, 200, response.body);
    };
    await capture({
      event: 'anon visit',
      distinct_id: 'visitor-1',
      timestamp: '2024-01-15T10:00:00Z',
      properties: { $process_person_profile: false },
    });
    assert.deepEqual(names(await list({ person_id: String(ada.id) })), ['$pageview', 'signed up', '$pageview']);
    await capture({
      event: '$identify',
      distinct_id: 'ada',
      timestamp: '2024-01-15T11:00:00Z',
      properties: { $anon_distinct_id: 'visitor-1' },
    });
    assert.deepEqual(names(await list({ person_id: String(ada.id) })), [
      '$identify',
      'anon visit',
      '$pageview',
      'signed up',
      '$pageview',
    ]);
    await a.ctx.deps.db
      .deleteFrom('events')
      .where('team_id', '=', a.teamId)
      .where('timestamp', '>=', new Date('2024-01-15'))
      .execute();
  });

  it('pages by keyset: every event once, in order, while newer events arrive between pages', async () => {
    const db = a.ctx.deps.db;
    const carol = await makePerson(db, a.teamId, { distinctIds: ['carol'] });
    // Ties on the timestamp are broken by uuid, so no event of a tie is skipped or repeated.
    for (let i = 0; i < 12; i++)
      await makeEvent(db, a.teamId, carol, `tick ${i}`, `2024-01-16T10:00:0${Math.floor(i / 3)}.000001Z`);
    const before = (await walk({ person_id: String(carol.id) })).map((event) => event.id);
    assert.equal(before.length, 12);
    let added = 0;
    const pages = await walk({ person_id: String(carol.id), limit: '5' }, async () => {
      added++;
      await makeEvent(db, a.teamId, carol, `late ${added}`, `2024-01-19T10:00:0${added}Z`);
    });
    assert.deepEqual(
      pages.map((event) => event.id),
      before,
    );
    assert.equal(added, 2);
    const stamps = pages.map((event) => event.timestamp);
    assert.deepEqual(stamps, [...stamps].sort().reverse());
    // The newer events are at the top of a fresh listing.
    assert.deepEqual(names(await list({ person_id: String(carol.id), limit: '2' })), ['late 2', 'late 1']);
    const next = (await list({ limit: '2' })).body.next as string;
    assert.match(next, /^http:\/\/localhost(:\d+)?\/api\/projects\/\d+\/events\/\?limit=2&cursor=/);
    await db.deleteFrom('events').where('team_id', '=', a.teamId).where('person_id', '=', carol.id).execute();
  });

  it('reads a page deep in the list from an index in time order, never sorting the events', async () => {
    const db = a.ctx.deps.db;
    const other = await makeTenant(db);
    // Enough events that the planner reads a page from the index rather than sorting the table.
    await sql`insert into events (team_id, uuid, event, distinct_id, person_key, properties, person_properties, timestamp)
      select ${other.project.id}, gen_random_uuid(), 'e' || (g % 7), 'd' || (g % 97), ${personlessKeySql(sql`'d' || (g % 97)`)}, '{}', '{}',
        '2024-01-01'::timestamptz + g * interval '1 minute' from generate_series(1, 20000) g`.execute(db);
    await sql.raw(`${EVERY_SHARD} analyze events`).execute(db);
    const context = { db, teamId: other.project.id, timezone: 'UTC', now: new Date('2024-02-01T00:00:00Z') };
    for (const event of [undefined, 'e3']) {
      const request = {
        event,
        filter: null,
        cursor: { timestamp: '2024-01-14T20:00:00.000001Z', uuid: crypto.randomUUID() },
        offset: 0,
        limit: 100,
      };
      const plan = (await sql<Record<string, string>>`explain ${eventsPageSql(context, request, 101)}`.execute(db)).rows
        .map((row) => Object.values(row)[0])
        .join('\n');
      // Read newest first from an index in timestamp order (by event, the event's own index may
      // serve, its ties on the timestamp ordered by an incremental sort): never a sort of the events.
      assert.match(plan, /Index Scan Backward using (events_list|events_event_time)(_\d+)? on/, plan);
      // On Citus the coordinator merges the shards' pages (a sort of their 101-row results) above the tasks.
      const onShards = plan.includes('Custom Scan (Citus') ? plan.slice(plan.indexOf('Task')) : plan;
      assert.doesNotMatch(onShards, /(^|->)\s*Sort\s+\(/m, plan);
    }
    await db.deleteFrom('events').where('team_id', '=', other.project.id).execute();
  });

  it('answers CSV, every captured text a spreadsheet would run neutralized', async () => {
    const db = a.ctx.deps.db;
    const evil = await makePerson(db, a.teamId, { distinctIds: ['=evil'], properties: { email: '@SUM(A1)' } });
    await makeEvent(db, a.teamId, evil, '=HYPERLINK("http://evil.example/")', '2024-01-17T10:00:00Z', {
      '+cmd': '-5',
      n: -5,
    });
    const response = await a.ctx.app.inject({
      method: 'GET',
      url: `${base}/${queryString({ format: 'csv', distinct_id: '=evil' })}`,
      headers: a.tenant.headers,
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(String(response.headers['content-type']), /^text\/csv/);
    const [header, row] = response.body.trim().split('\n');
    assert.equal(
      header,
      'distinct_id,elements_chain,event,id,person.distinct_ids.0,person.is_identified,person.properties.email,properties.+cmd,properties.n,timestamp',
    );
    assert.ok(row.startsWith(`'=evil,,"'=HYPERLINK(""http://evil.example/"")",`), row);
    assert.ok(row.includes(",'=evil,False,'@SUM(A1),'-5,-5,2024-01-17T10:00:00.000Z"), row);
    // As CSV the whole listing comes in one answer, beyond a JSON page.
    const all = await a.ctx.app.inject({
      method: 'GET',
      url: `${base}/?format=csv&limit=3`,
      headers: a.tenant.headers,
    });
    assert.equal(all.body.trim().split('\n').length, 4);
    await db.deleteFrom('events').where('team_id', '=', a.teamId).where('person_id', '=', evil.id).execute();
  });

  it('needs query:read (or *), and a member of the project', async () => {
    const persons = await makeKey(a.ctx.deps.db, a.tenant.owner, { scopes: ['person:read'] });
    const denied = await list({}, bearer(persons));
    assert.equal(denied.status, 403);
    const query = await makeKey(a.ctx.deps.db, a.tenant.owner, { scopes: ['query:read'] });
    assert.equal((await list({}, bearer(query))).status, 200);
    const one = await sendJson(a.ctx.app, 'GET', `${base}/${crypto.randomUUID()}/`, bearer(persons));
    assert.equal(one.status, 403);
    const stranger = await makeTenant(a.ctx.deps.db);
    assert.equal((await list({}, stranger.headers)).status, 403);
  });

  it("never shows another project's events", async () => {
    const other = await makeTenant(a.ctx.deps.db);
    const theirs = await makePerson(a.ctx.deps.db, other.project.id, { distinctIds: ['ada'] });
    await makeEvent(a.ctx.deps.db, other.project.id, theirs, 'foreign', '2024-01-18T10:00:00Z');
    const mine = await list({ distinct_id: 'ada' });
    assert.ok(!names(mine).includes('foreign'));
    assert.deepEqual(names(await list({ person_id: String(theirs.id) })), []);
    const [foreign] = (await sendJson(a.ctx.app, 'GET', `/api/projects/${other.project.id}/events/`, other.headers))
      .body.results as WireEvent[];
    assert.equal(foreign.event, 'foreign');
    assert.equal((await sendJson(a.ctx.app, 'GET', `${base}/${foreign.id}/`, a.tenant.headers)).status, 404);
  });

  it('answers 400 naming the parameter for every bad input', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ limit: '0' }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
      [{ after: 'yesterday-ish' }, 'after'],
      [{ before: '2024-13-40' }, 'before'],
      [{ person_id: 'somebody' }, 'person_id'],
      [{ properties: '{not json' }, 'properties'],
      [{ properties: [{ key: 'x', operator: 'sounds_like', value: 1 }] }, 'properties'],
      [{ properties: [{ key: 'id', value: 987654, type: 'cohort' }] }, 'properties'],
      [{ cursor: 'nonsense' }, 'cursor'],
      [{ cursor: `2024-02-30T10:00:00Z,${crypto.randomUUID()}` }, 'cursor'],
      [{ cursor: '2024-01-10T10:00:00Z,not-a-uuid' }, 'cursor'],
      [{ event: 'nul\u0000' }, 'event'],
      [{ format: 'xml' }, 'format'],
    ];
    for (const [params, attr] of cases) {
      const response = await list(params);
      assert.equal(response.status, 400, `${JSON.stringify(params)}: ${response.text}`);
      assert.equal(response.body.type, 'validation_error');
      assert.equal(response.body.attr, attr, JSON.stringify(params));
    }
  });

  it('skips `offset` events (the deprecated paging), and `next` goes on by cursor alone', async () => {
    const all = names(await list());
    const skipped = await list({ offset: '2', limit: '2' });
    assert.deepEqual(names(skipped), all.slice(2, 4));
    const next = new URL(skipped.body.next as string);
    assert.equal(next.searchParams.get('offset'), null);
    assert.deepEqual(names(await a.follow(next.toString())), all.slice(4, 6));
    const csv = await a.ctx.app.inject({
      method: 'GET',
      url: `${base}/?format=csv&offset=3&limit=1`,
      headers: a.tenant.headers,
    });
    assert.equal(csv.body.trim().split('\n').length, 2);
    assert.ok(csv.body.includes(`,${all[3]},`), csv.body);
    const tooFar = await list({ offset: '50001' });
    assert.equal(tooFar.status, 400);
    assert.equal(tooFar.body.attr, 'offset');
  });

  it('clamps a limit above the maximum', async () => {
    const response = await list({ limit: '5000' });
    assert.equal(response.status, 200, response.text);
  });
});
