// EventsQuery through POST /query/: HogQL select/where/orderBy strings over this project's events,
// `*` and `person` as objects, grouping by the non-aggregates, the event, person, property and time
// filters, paging and errors naming the string at fault.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { makeEvent } from '../helpers/analytics-factories.ts';
import { setupTestApp, TestClock, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant, type TestPerson } from '../helpers/factories.ts';
import { eventKey } from '../../src/db/person-key.ts';

describe('EventsQuery', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let alice: TestPerson;
  let bob: TestPerson;
  let cohortId: number;

  before(async () => {
    ctx = await setupTestApp({ clock: new TestClock(new Date('2024-03-10T12:00:00Z')) });
    tenant = await makeTenant(ctx.deps.db);
    const db = ctx.deps.db;
    const team = tenant.project.id;
    alice = await makePerson(db, team, {
      distinctIds: ['alice-1'],
      properties: { email: 'alice@example.com' },
      createdAt: '2024-01-01T00:00:00Z',
    });
    bob = await makePerson(db, team, { distinctIds: ['bob-1'], properties: { email: 'bob@example.com' } });
    await makeEvent(db, team, alice, '$pageview', '2024-03-10T11:00:00Z', { $browser: 'Chrome', key: 'a' });
    await makeEvent(db, team, alice, '$pageview', '2024-03-10T10:00:00Z', { $browser: 'Firefox', key: 'b' });
    await makeEvent(db, team, bob, 'sign out', '2024-03-10T09:00:00Z', { $browser: 'Chrome', key: 'a' });
    await makeEvent(db, team, bob, 'sign out', '2024-03-05T09:00:00Z', { key: 'c' });
    await makeEvent(db, team, bob, 'sign up', '2023-01-01T00:00:00Z', { key: 'd' });
    // A future-dated event, hidden by the default `before` (now + 5 s).
    await makeEvent(db, team, bob, 'sign out', '2024-03-11T00:00:00Z', {});
    await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
      values (${team}::integer, gen_random_uuid(), 'anon', 'anon-1', null, ${eventKey(null, 'anon-1')}, '{}', '{}', '2024-03-10T08:00:00Z')`.execute(
      db,
    );
    const cohort = await sql<{ id: number }>`insert into cohorts (team_id, name, filters, created_at)
      values (${team}::integer, 'bobs', ${JSON.stringify({ properties: { type: 'AND', values: [{ key: 'email', value: 'bob@example.com', type: 'person' }] } })}::jsonb, now()) returning id`.execute(
      db,
    );
    cohortId = cohort.rows[0].id;
  });
  after(() => ctx.close());

  const run = (node: Record<string, unknown>) =>
    ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${tenant.project.id}/query/`,
      headers: tenant.headers,
      payload: { query: { kind: 'EventsQuery', ...node } },
    });
  async function ok(node: Record<string, unknown>) {
    const response = await run(node);
    assert.equal(response.statusCode, 200, `${JSON.stringify(node)}\n${response.body}`);
    return response.json();
  }

  it('gives * as the event object and person as the person object, newest first, in the last 24 hours by default', async () => {
    const body = await ok({ select: ['*', 'event', 'person', 'properties.$browser -- Browser'] });
    assert.deepEqual(body.columns, ['*', 'event', 'person', 'properties.$browser -- Browser']);
    assert.deepEqual(body.types.slice(1), ['String', 'String', 'Nullable(String)']);
    assert.match(body.types[0], /^Tuple\(uuid UUID, event String/);
    assert.deepEqual(
      body.results.map((row: unknown[]) => row[1]),
      ['$pageview', '$pageview', 'sign out', 'anon'],
    );
    const [star, , person, browser] = body.results[0];
    assert.deepEqual(Object.keys(star).sort(), [
      'created_at',
      'distinct_id',
      'elements_chain',
      'event',
      'person_mode',
      'properties',
      'team_id',
      'timestamp',
      'uuid',
    ]);
    assert.deepEqual(
      [star.event, star.distinct_id, star.timestamp, star.properties, star.team_id],
      ['$pageview', 'alice-1', '2024-03-10T11:00:00.000Z', { $browser: 'Chrome', key: 'a' }, tenant.project.id],
    );
    assert.deepEqual(person, {
      uuid: alice.uuid,
      created_at: '2024-01-01T00:00:00.000Z',
      properties: { email: 'alice@example.com' },
      distinct_id: 'alice-1',
    });
    assert.equal(browser, 'Chrome');
    assert.deepEqual(body.results[3][2], { distinct_id: 'anon-1' });
    assert.deepEqual([body.hasMore, body.limit, body.offset], [false, 100, 0]);
    assert.match(
      body.hogql,
      /^SELECT \*, event, person, properties\.\$browser FROM events ORDER BY timestamp DESC LIMIT 100$/,
    );
  });

  it('groups by the columns that do not aggregate, most counted first; an aggregate in where filters the groups', async () => {
    const body = await ok({ select: ['properties.key', 'count()'], after: 'all' });
    // Keys a (2), b, c, d and none (the future event is after `before`): count() DESC puts a first.
    assert.deepEqual(body.results[0], ['a', 2]);
    assert.deepEqual(
      body.results.slice(1).map((row: unknown[]) => row[1]),
      [1, 1, 1, 1],
    );
    assert.deepEqual(new Set(body.results.map((row: unknown[]) => row[0])), new Set(['a', 'b', 'c', 'd', null]));
    assert.deepEqual(body.types, ['Nullable(String)', 'UInt64']);
    const filtered = await ok({ select: ['properties.key', 'count()'], where: ['count() > 1'], after: 'all' });
    assert.deepEqual(filtered.results, [['a', 2]]);
    const byEvent = await ok({ select: ['count()', 'event'], after: 'all', orderBy: ['count() DESC', 'event'] });
    assert.deepEqual(byEvent.results, [
      [2, '$pageview'],
      [2, 'sign out'],
      [1, 'anon'],
      [1, 'sign up'],
    ]);
  });

  it('filters by where, event, personId (uuid or id) and property filters of events, persons and cohorts', async () => {
    const events = async (node: Record<string, unknown>) =>
      (await ok({ select: ['event', 'distinct_id'], after: 'all', orderBy: ['timestamp'], ...node })).results;
    assert.deepEqual(await events({ where: ["properties.$browser = 'Chrome'", "event != 'x'"] }), [
      ['sign out', 'bob-1'],
      ['$pageview', 'alice-1'],
    ]);
    assert.deepEqual(await events({ event: 'sign up' }), [['sign up', 'bob-1']]);
    assert.deepEqual(await events({ personId: alice.uuid }), [
      ['$pageview', 'alice-1'],
      ['$pageview', 'alice-1'],
    ]);
    assert.deepEqual(await events({ personId: alice.id }), [
      ['$pageview', 'alice-1'],
      ['$pageview', 'alice-1'],
    ]);
    assert.deepEqual(await events({ properties: [{ key: '$browser', value: 'Firefox', type: 'event' }] }), [
      ['$pageview', 'alice-1'],
    ]);
    assert.deepEqual(await events({ properties: [{ key: 'email', value: 'alice@example.com', type: 'person' }] }), [
      ['$pageview', 'alice-1'],
      ['$pageview', 'alice-1'],
    ]);
    assert.deepEqual((await events({ properties: [{ key: 'id', value: cohortId, type: 'cohort' }] })).length, 3);
    const unknownCohort = await run({ select: ['event'], properties: [{ key: 'id', value: 999999, type: 'cohort' }] });
    assert.equal(unknownCohort.statusCode, 400);
    assert.equal(unknownCohort.json().attr, 'query.properties');
  });

  it('bounds time by after and before (ISO or relative), strictly', async () => {
    const count = async (node: Record<string, unknown>) => (await ok({ select: ['count()'], ...node })).results[0][0];
    assert.equal(await count({}), 4);
    assert.equal(await count({ after: 'all' }), 6);
    assert.equal(await count({ after: '-7d' }), 5);
    assert.equal(await count({ after: 'all', before: '-1y' }), 1);
    assert.equal(await count({ after: '2024-03-05T09:00:00Z', before: '2024-03-10T10:00:00Z' }), 2);
    assert.equal(await count({ after: 'all', before: '2030-01-01' }), 7);
    const bad = await run({ select: ['count()'], after: 'yesterday-ish' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().attr, 'query.after');
  });

  it('pages with limit and offset, and says hasMore', async () => {
    const first = await ok({ select: ['event'], after: 'all', orderBy: ['timestamp ASC'], limit: 2 });
    assert.deepEqual([first.results, first.hasMore, first.limit], [[['sign up'], ['sign out']], true, 2]);
    const last = await ok({ select: ['event'], after: 'all', orderBy: ['timestamp ASC'], limit: 4, offset: 4 });
    assert.deepEqual([last.results, last.hasMore, last.offset], [[['$pageview'], ['$pageview']], false, 4]);
    const capped = await ok({ select: ['event'], limit: 10_000_000 });
    assert.equal(capped.limit, 50_000);
  });

  it('names the string at fault, with line and column', async () => {
    for (const [node, attr, pattern] of [
      [
        { select: ['event', 'evnt'] },
        'query.select[1]',
        /Unable to resolve field: evnt\. Did you mean event\? \(line 1, column 1\)/,
      ],
      [
        { select: ['event'], where: ["event = 'x'", 'properties.n > 1'] },
        'query.where[1]',
        /convert it with toInt\(\) or toFloat\(\)\. \(line 1, column 14\)/,
      ],
      [
        { select: ['event'], orderBy: ['timestamp sideways'] },
        'query.orderBy[0]',
        /Expected the end of the expression, found 'sideways'/,
      ],
      [{ select: ['event'], where: ['pg_sleep(1)'] }, 'query.where[0]', /Unknown function pg_sleep/],
      [{ select: ['event; drop table events'] }, 'query.select[0]', /found ';'\. \(line 1, column 6\)/],
      [{ select: 'event' }, 'query.select', /list of HogQL expressions/],
      [{ select: ['event'], personId: 'nobody' }, 'query.personId', /uuid/],
      [{ select: ['event'], limit: 'ten' }, 'query.limit', /whole number/],
    ] as const) {
      const response = await run(node as Record<string, unknown>);
      assert.equal(response.statusCode, 400, `${JSON.stringify(node)} ${response.body}`);
      assert.equal(response.json().attr, attr, JSON.stringify(node));
      assert.match(response.json().detail, pattern);
    }
  });
});
