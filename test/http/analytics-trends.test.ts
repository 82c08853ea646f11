import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makePerson, makeProject, makeTenantMember, type TestPerson } from '../helpers/factories.ts';
import {
  deletePerson,
  makeEvent,
  makeEvents,
  setTimezone,
  setupAnalytics,
  sortedUuids,
  uuidsOf,
  type AnalyticsContext,
} from '../helpers/analytics-factories.ts';

const pageview = [{ id: '$pageview', type: 'events' }];

describe('persons/trends', () => {
  let a: AnalyticsContext;
  let db: AnalyticsContext['ctx']['deps']['db'];
  let alice: TestPerson;
  let bob: TestPerson;
  let carol: TestPerson;
  before(async () => {
    a = await setupAnalytics();
    db = a.ctx.deps.db;
    alice = await makePerson(db, a.teamId, {
      distinctIds: ['alice'],
      properties: { email: 'alice@example.com', plan: 'pro' },
      createdAt: '2024-01-01T00:00:00Z',
    });
    bob = await makePerson(db, a.teamId, {
      distinctIds: ['bob'],
      properties: { email: 'bob@example.com' },
      createdAt: '2024-01-02T00:00:00Z',
    });
    carol = await makePerson(db, a.teamId, {
      distinctIds: ['carol'],
      properties: { name: 'Carol' },
      createdAt: '2024-01-03T00:00:00Z',
    });
    await makeEvents(db, a.teamId, alice, [
      ['$pageview', '2024-01-10T00:00:00Z', { browser: 'Chrome' }],
      ['$pageview', '2024-01-10T23:59:59Z', { browser: 'Chrome' }],
      ['$pageview', '2024-01-11T00:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, bob, [
      ['$pageview', '2024-01-10T12:00:00Z', { browser: 'Firefox' }],
      ['signup', '2024-01-10T12:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, carol, [
      ['$pageview', '2024-01-09T23:59:59Z'],
      ['$pageview', '2024-01-14T01:00:00Z'],
    ]);
  });
  after(() => a.ctx.close());

  it('returns the persons of a day bucket, most events first, as Person objects', async () => {
    const res = await a.get('trends', {
      events: pageview,
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-10',
      date_to: '2024-01-10',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.results[0].people.map((p: { uuid: string }) => p.uuid),
      [alice.uuid, bob.uuid],
    );
    assert.equal(res.body.results[0].count, 2);
    assert.equal(res.body.missing_persons, 0);
    assert.equal(res.body.next, null);
    assert.deepEqual(Object.keys(res.body.results[0].people[0]).sort(), [
      'created_at',
      'distinct_ids',
      'id',
      'name',
      'properties',
      'uuid',
    ]);
    assert.equal(res.body.results[0].people[0].id, alice.id);
    assert.equal(res.body.results[0].people[0].name, 'alice@example.com');
  });

  it('computes the bucket end from date_from when date_to is absent or equal', async () => {
    const res = await a.get('trends', { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-11' });
    assert.deepEqual(uuidsOf(res.body), [alice.uuid]);
  });

  it('rounds a week bucket down to Sunday and spans seven days', async () => {
    // 2024-01-10 is a Wednesday; its week is Sunday 2024-01-07 .. Saturday 2024-01-13.
    const res = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      interval: 'week',
      date_from: '2024-01-10',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), sortedUuids(alice, bob, carol));
    const next = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      interval: 'week',
      date_from: '2024-01-14',
    });
    assert.deepEqual(uuidsOf(next.body), [carol.uuid]);
  });

  it('spans a whole month for interval=month', async () => {
    const res = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      interval: 'month',
      date_from: '2024-01-15',
    });
    assert.deepEqual(uuidsOf(res.body), sortedUuids(alice, bob, carol));
  });

  it('uses hour buckets', async () => {
    const res = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      interval: 'hour',
      date_from: '2024-01-10 12:00:00',
      date_to: '2024-01-10 12:59:59',
    });
    assert.deepEqual(uuidsOf(res.body), [bob.uuid]);
    const zero = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      interval: 'hour',
      date_from: '2024-01-10 13:00:00',
    });
    assert.deepEqual(uuidsOf(zero.body), []);
  });

  it('buckets in the project timezone', async () => {
    const project = await makeProject(db, a.tenant.organization);
    await setTimezone(db, project.id, 'Asia/Tokyo');
    const dave = await makePerson(db, project.id, { distinctIds: ['dave'] });
    // 2024-01-10T16:00Z is 2024-01-11 01:00 in Tokyo.
    await makeEvent(db, project.id, dave, '$pageview', '2024-01-10T16:00:00Z');
    const local = await a.get(
      'trends',
      { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-11' },
      project.id,
    );
    assert.equal(local.status, 200, local.text);
    assert.deepEqual(uuidsOf(local.body), [dave.uuid]);
    const utcDay = await a.get(
      'trends',
      { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-10' },
      project.id,
    );
    assert.deepEqual(uuidsOf(utcDay.body), []);
  });

  it('applies entity and global property filters', async () => {
    const events = [
      { id: '$pageview', type: 'events', properties: [{ key: 'browser', value: 'Chrome', type: 'event' }] },
    ];
    const entity = await a.get('trends', {
      events,
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-10',
    });
    assert.equal(entity.status, 200, entity.text);
    assert.deepEqual(uuidsOf(entity.body), [alice.uuid]);
    const global = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-10',
      properties: [{ key: 'email', value: 'bob@example.com', type: 'person' }],
    });
    assert.deepEqual(uuidsOf(global.body), [bob.uuid]);
  });

  it('narrows by an event breakdown value, "" meaning the property is missing', async () => {
    const base = {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-09',
      date_to: '2024-01-11',
      display: 'ActionsTable',
      breakdown: 'browser',
      breakdown_type: 'event',
    };
    const firefox = await a.get('trends', { ...base, breakdown_value: 'Firefox' });
    assert.deepEqual(uuidsOf(firefox.body), [bob.uuid]);
    const none = await a.get('trends', { ...base, breakdown_value: '' });
    assert.deepEqual(uuidsOf(none.body), sortedUuids(alice, carol));
  });

  it('narrows by a cohort breakdown, static or dynamic; an unknown cohort is a 400', async () => {
    const base = {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-09',
      date_to: '2024-01-14',
      display: 'ActionsTable',
      breakdown_type: 'cohort',
    };
    const staticCohort = await db
      .insertInto('cohorts')
      .values({ team_id: a.teamId, name: 'static', is_static: true })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('cohort_people')
      .values({ team_id: a.teamId, cohort_id: staticCohort.id, person_id: bob.id })
      .execute();
    const byStatic = await a.get('trends', { ...base, breakdown_value: String(staticCohort.id) });
    assert.equal(byStatic.status, 200, byStatic.text);
    assert.deepEqual(uuidsOf(byStatic.body), [bob.uuid]);
    const dynamic = await db
      .insertInto('cohorts')
      .values({
        team_id: a.teamId,
        name: 'pro',
        is_static: false,
        filters: JSON.stringify({
          properties: { type: 'AND', values: [{ key: 'plan', value: 'pro', type: 'person' }] },
        }),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const byDynamic = await a.get('trends', { ...base, breakdown_value: String(dynamic.id) });
    assert.deepEqual(uuidsOf(byDynamic.body), [alice.uuid]);
    const all = await a.get('trends', { ...base, breakdown_value: 'all' });
    assert.deepEqual(uuidsOf(all.body), sortedUuids(alice, bob, carol));
    const unknown = await a.get('trends', { ...base, breakdown_value: '999999' });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.attr, 'breakdown_value');
  });

  it('narrows a histogram breakdown to the bucket [lo, hi)', async () => {
    const project = await makeProject(db, a.tenant.organization);
    const low = await makePerson(db, project.id);
    const edge = await makePerson(db, project.id);
    const high = await makePerson(db, project.id);
    await makeEvent(db, project.id, low, 'purchase', '2024-01-10T10:00:00Z', { amount: 5 });
    await makeEvent(db, project.id, edge, 'purchase', '2024-01-10T11:00:00Z', { amount: 10 });
    await makeEvent(db, project.id, high, 'purchase', '2024-01-10T12:00:00Z', { amount: 12 });
    const base = {
      entity_id: 'purchase',
      entity_type: 'events',
      date_from: '2024-01-10',
      display: 'ActionsTable',
      breakdown: 'amount',
      breakdown_type: 'event',
      breakdown_histogram_bin_count: '2',
    };
    const res = await a.get('trends', { ...base, breakdown_value: '[5, 10]' }, project.id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), [low.uuid]);
    const bad = await a.get('trends', { ...base, breakdown_value: 'Chrome' }, project.id);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.attr, 'breakdown_value');
  });

  it('reads mStart as the start of the current month', async () => {
    // The clock stands at 2024-01-20: mStart is 2024-01-01.
    const res = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: 'mStart',
      display: 'ActionsTable',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), sortedUuids(alice, bob, carol));
  });

  it('searches by email, name or distinct id', async () => {
    const res = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-09',
      date_to: '2024-01-14',
      display: 'ActionsTable',
      search: 'CAROL',
    });
    assert.deepEqual(uuidsOf(res.body), [carol.uuid]);
  });

  it('pages with limit and an absolute next link', async () => {
    const params = {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-09',
      date_to: '2024-01-14',
      display: 'ActionsTable',
      limit: '2',
    };
    const first = await a.get('trends', params);
    assert.equal(first.body.results[0].people.length, 2);
    assert.match(first.body.next, /^http:\/\/[^/]+\/api\/projects\/\d+\/persons\/trends\/\?.*offset=2/);
    const second = await a.follow(first.body.next);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.results[0].people.length, 1);
    assert.equal(second.body.next, null);
    const all = [...first.body.results[0].people, ...second.body.results[0].people]
      .map((p: { uuid: string }) => p.uuid)
      .sort();
    assert.deepEqual(all, sortedUuids(alice, bob, carol));
  });

  it('widens the window for weekly_active to the trailing week', async () => {
    const events = [{ id: '$pageview', type: 'events', math: 'weekly_active' }];
    const res = await a.get('trends', {
      events,
      entity_id: '$pageview',
      entity_type: 'events',
      entity_math: 'weekly_active',
      date_from: '2024-01-14',
    });
    assert.equal(res.status, 200, res.text);
    // 2024-01-14 minus six days reaches back to 2024-01-08.
    assert.deepEqual(uuidsOf(res.body), sortedUuids(alice, bob, carol));
    const plain = await a.get('trends', { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-14' });
    assert.deepEqual(uuidsOf(plain.body), [carol.uuid]);
  });

  it('orders by a property aggregate for property maths', async () => {
    const project = await makeProject(db, a.tenant.organization);
    const small = await makePerson(db, project.id);
    const big = await makePerson(db, project.id);
    await makeEvent(db, project.id, small, 'purchase', '2024-01-10T10:00:00Z', { amount: 5 });
    await makeEvent(db, project.id, small, 'purchase', '2024-01-10T11:00:00Z', { amount: 6 });
    await makeEvent(db, project.id, big, 'purchase', '2024-01-10T10:00:00Z', { amount: 20 });
    const events = [{ id: 'purchase', type: 'events', math: 'sum', math_property: 'amount' }];
    const sum = await a.get(
      'trends',
      { events, entity_id: 'purchase', entity_type: 'events', entity_math: 'sum', date_from: '2024-01-10' },
      project.id,
    );
    assert.equal(sum.status, 200, sum.text);
    assert.deepEqual(
      sum.body.results[0].people.map((person: { uuid: string }) => person.uuid),
      [big.uuid, small.uuid],
    );
    const count = await a.get(
      'trends',
      { entity_id: 'purchase', entity_type: 'events', date_from: '2024-01-10' },
      project.id,
    );
    assert.deepEqual(
      count.body.results[0].people.map((person: { uuid: string }) => person.uuid),
      [small.uuid, big.uuid],
    );
  });

  it('needs the person:read scope', async () => {
    const member = await makeTenantMember(db, a.tenant, 1, ['organization:read']);
    const res = await a.ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${a.teamId}/persons/trends/?entity_id=$pageview&entity_type=events`,
      headers: member.headers,
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'person:read'");
  });

  it('answers CSV for format=csv', async () => {
    const res = await a.get('trends', {
      entity_id: '$pageview',
      entity_type: 'events',
      date_from: '2024-01-10',
      format: 'csv',
    });
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /text\/csv/);
    const [header, ...lines] = res.text.trim().split('\n');
    assert.ok(header.split(',').includes('uuid'));
    assert.ok(header.split(',').includes('properties.email'));
    assert.equal(lines.length, 2);
  });

  it('answers 400 naming the parameter for bad input', async () => {
    const cases: [Record<string, unknown>, string | null, string?][] = [
      [
        { actions: [{ id: 1, type: 'actions' }], entity_id: '1', entity_type: 'actions' },
        'actions',
        'Actions are not supported',
      ],
      [{ date_from: '2024-01-10' }, 'entity_id'],
      [{ entity_id: '$pageview', entity_type: 'events', interval: 'fortnight' }, 'interval'],
      [{ entity_id: '$pageview', entity_type: 'events', date_from: 'yesterday-ish' }, 'date_from'],
      [{ entity_id: '$pageview', entity_type: 'events', limit: '0' }, 'limit'],
      [{ entity_id: '$pageview', entity_type: 'events', offset: 'x' }, 'offset'],
      [
        { entity_id: '$pageview', entity_type: 'events', properties: '{not json' },
        'properties',
        'Properties are unparsable!',
      ],
      [
        { entity_id: '$pageview', entity_type: 'events', properties: [{ key: 'a', operator: 'nope', value: 1 }] },
        'properties',
      ],
      [{ entity_id: '$pageview', entity_type: 'events', events: '{"id": 5}' }, 'events'],
      [{ entity_id: '$pageview', entity_type: 'events', format: 'xml' }, 'format'],
      [{ entity_id: '$pageview', entity_type: 'events', date_from: '-99999999999d' }, 'date_from'],
      [{ entity_id: 'page\u0000view', entity_type: 'events' }, 'entity_id'],
      [{ entity_id: '$pageview', entity_type: 'events', events: [{ id: 'x\u0000' }] }, 'events'],
      [
        { entity_id: '$pageview', entity_type: 'events', breakdown_type: 'cohort', breakdown_value: '99999999999999' },
        'breakdown_value',
      ],
      [{ entity_id: '$pageview', entity_type: 'events', entity_math: 'sum' }, 'math_property'],
      [{ entity_id: '$pageview', entity_type: 'events', entity_math: 'unique_group' }, 'entity_math'],
    ];
    for (const [params, attr, detail] of cases) {
      const query = { ...params };
      if (typeof query.actions !== 'string' && query.actions !== undefined)
        query.actions = JSON.stringify(query.actions);
      const res = await a.get('trends', query);
      assert.equal(res.status, 400, `${JSON.stringify(params)} → ${res.text}`);
      assert.equal(res.body.attr, attr, JSON.stringify(params));
      if (detail) assert.equal(res.body.detail, detail);
    }
  });

  it('counts persons the events point to that no longer exist as missing_persons', async () => {
    const project = await makeProject(db, a.tenant.organization);
    const gone = await makePerson(db, project.id);
    const kept = await makePerson(db, project.id);
    await makeEvent(db, project.id, gone, '$pageview', '2024-01-10T10:00:00Z');
    await makeEvent(db, project.id, kept, '$pageview', '2024-01-10T10:00:00Z');
    await deletePerson(db, project.id, gone);
    const res = await a.get(
      'trends',
      { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-10' },
      project.id,
    );
    assert.deepEqual(uuidsOf(res.body), [kept.uuid]);
    assert.equal(res.body.missing_persons, 1);
  });
});

describe('persons/stickiness', () => {
  let a: AnalyticsContext;
  let alice: TestPerson;
  let bob: TestPerson;
  before(async () => {
    a = await setupAnalytics();
    const db = a.ctx.deps.db;
    alice = await makePerson(db, a.teamId, { distinctIds: ['alice'] });
    bob = await makePerson(db, a.teamId, { distinctIds: ['bob'] });
    // Alice: three distinct days (two events on the 10th count once); Bob: one day.
    await makeEvents(db, a.teamId, alice, [
      ['$pageview', '2024-01-10T01:00:00Z'],
      ['$pageview', '2024-01-10T22:00:00Z'],
      ['$pageview', '2024-01-12T10:00:00Z'],
      ['$pageview', '2024-01-15T10:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, bob, [
      ['$pageview', '2024-01-12T10:00:00Z'],
      ['$pageview', '2024-01-12T11:00:00Z'],
    ]);
  });
  after(() => a.ctx.close());

  const base = { entity_id: '$pageview', entity_type: 'events', date_from: '2024-01-08', date_to: '2024-01-16' };

  it('returns persons active on exactly N distinct days', async () => {
    const three = await a.get('stickiness', { ...base, stickiness_days: '3' });
    assert.equal(three.status, 200, three.text);
    assert.deepEqual(uuidsOf(three.body), [alice.uuid]);
    const one = await a.get('stickiness', { ...base, stickiness_days: '1' });
    assert.deepEqual(uuidsOf(one.body), [bob.uuid]);
    const two = await a.get('stickiness', { ...base, stickiness_days: '2' });
    assert.deepEqual(uuidsOf(two.body), []);
    assert.equal(two.body.missing_persons, 0);
  });

  it('counts weeks with interval=week', async () => {
    // Alice: week of Jan 7 and week of Jan 14.
    const res = await a.get('stickiness', { ...base, interval: 'week', stickiness_days: '2' });
    assert.deepEqual(uuidsOf(res.body), [alice.uuid]);
  });

  it('rejects a non-integer stickiness_days', async () => {
    const res = await a.get('stickiness', { ...base, stickiness_days: 'many' });
    assert.equal(res.status, 400);
    assert.equal(res.body.attr, 'stickiness_days');
  });
});
