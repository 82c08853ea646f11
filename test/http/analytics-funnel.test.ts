import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  makeEvents,
  setupAnalytics,
  sortedUuids,
  uuidsOf,
  type AnalyticsContext,
} from '../helpers/analytics-factories.ts';
import { makePerson, type TestPerson } from '../helpers/factories.ts';

const steps = [
  { id: '$pageview', type: 'events', order: 0 },
  { id: 'signup', type: 'events', order: 1 },
  { id: 'purchase', type: 'events', order: 2 },
];
const range = { date_from: '2024-01-01', date_to: '2024-01-19' };

describe('persons/funnel', () => {
  let a: AnalyticsContext;
  const p: Record<string, TestPerson> = {};
  before(async () => {
    a = await setupAnalytics();
    const db = a.ctx.deps.db;
    const journeys: Record<string, [string, string][]> = {
      full: [
        ['$pageview', '2024-01-02T10:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['purchase', '2024-01-04T10:00:00Z'],
      ],
      dropAt2: [
        ['$pageview', '2024-01-02T10:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
      ],
      dropAt1: [['$pageview', '2024-01-02T10:00:00Z']],
      // The purchase comes 17 days after the start: outside the default 14-day window.
      late: [
        ['$pageview', '2024-01-01T10:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['purchase', '2024-01-18T10:00:00Z'],
      ],
      wrongOrder: [
        ['purchase', '2024-01-02T10:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['$pageview', '2024-01-04T10:00:00Z'],
      ],
      // Another event between the steps breaks a strict funnel only.
      strictBreak: [
        ['$pageview', '2024-01-02T10:00:00Z'],
        ['other', '2024-01-02T12:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['purchase', '2024-01-04T10:00:00Z'],
      ],
      // The first attempt stops at step 2; the second one converts.
      retry: [
        ['$pageview', '2024-01-02T09:00:00Z'],
        ['signup', '2024-01-03T09:00:00Z'],
        ['$pageview', '2024-01-10T10:00:00Z'],
        ['signup', '2024-01-11T10:00:00Z'],
        ['purchase', '2024-01-12T10:00:00Z'],
      ],
      // Converts, but with an excluded event in between.
      excluded: [
        ['$pageview', '2024-01-05T10:00:00Z'],
        ['cancel', '2024-01-05T12:00:00Z'],
        ['signup', '2024-01-06T10:00:00Z'],
        ['purchase', '2024-01-07T10:00:00Z'],
      ],
      // Out of the date range entirely.
      outside: [
        ['$pageview', '2023-12-20T10:00:00Z'],
        ['signup', '2023-12-21T10:00:00Z'],
      ],
    };
    for (const [name, events] of Object.entries(journeys)) {
      p[name] = await makePerson(db, a.teamId, {
        distinctIds: [name],
        properties: { plan: name === 'full' ? 'pro' : 'free' },
      });
      await makeEvents(db, a.teamId, p[name], events);
    }
  });
  after(() => a.ctx.close());

  const names = (...list: string[]) => sortedUuids(...list.map((name) => p[name]));
  const funnel = (params: Record<string, unknown>) => a.get('funnel', { events: steps, ...range, ...params });

  it('selects persons that reached at least step N', async () => {
    const one = await funnel({ funnel_step: '1' });
    assert.equal(one.status, 200, one.text);
    assert.deepEqual(
      uuidsOf(one.body),
      names('full', 'dropAt2', 'dropAt1', 'late', 'wrongOrder', 'strictBreak', 'retry', 'excluded'),
    );
    assert.deepEqual(
      uuidsOf((await funnel({ funnel_step: '2' })).body),
      names('full', 'dropAt2', 'late', 'strictBreak', 'retry', 'excluded'),
    );
    assert.deepEqual(
      uuidsOf((await funnel({ funnel_step: '3' })).body),
      names('full', 'strictBreak', 'retry', 'excluded'),
    );
    assert.equal(one.body.missing_persons, 0);
    assert.equal(one.body.next, null);
  });

  it('selects drop-offs with a negative step: -N reached step N-1 but not N', async () => {
    assert.deepEqual(uuidsOf((await funnel({ funnel_step: '-2' })).body), names('dropAt1', 'wrongOrder'));
    assert.deepEqual(uuidsOf((await funnel({ funnel_step: '-3' })).body), names('dropAt2', 'late'));
  });

  it('selects custom step sets', async () => {
    const res = await funnel({ funnel_custom_steps: [1, 3] });
    assert.deepEqual(uuidsOf(res.body), names('dropAt1', 'wrongOrder', 'full', 'strictBreak', 'retry', 'excluded'));
  });

  it('honours the conversion window and its unit', async () => {
    assert.deepEqual(
      uuidsOf((await funnel({ funnel_step: '3', funnel_window_interval: '20' })).body),
      names('full', 'strictBreak', 'retry', 'excluded', 'late'),
    );
    assert.deepEqual(
      uuidsOf((await funnel({ funnel_step: '3', funnel_window_days: '20' })).body),
      names('full', 'strictBreak', 'retry', 'excluded', 'late'),
    );
    // 36 hours: each step a day after the previous one fits step 2, not step 3 (two days after the start).
    const hours = await funnel({ funnel_step: '2', funnel_window_interval: '36', funnel_window_interval_unit: 'hour' });
    assert.deepEqual(uuidsOf(hours.body), names('full', 'dropAt2', 'strictBreak', 'retry', 'excluded'));
    assert.deepEqual(
      uuidsOf(
        (await funnel({ funnel_step: '3', funnel_window_interval: '36', funnel_window_interval_unit: 'hour' })).body,
      ),
      [],
    );
    // late's purchase comes 17 days after its start: within three weeks or a month, not two weeks.
    const converted = names('full', 'strictBreak', 'retry', 'excluded');
    const withLate = names('full', 'strictBreak', 'retry', 'excluded', 'late');
    assert.deepEqual(
      uuidsOf(
        (await funnel({ funnel_step: '3', funnel_window_interval: '3', funnel_window_interval_unit: 'week' })).body,
      ),
      withLate,
    );
    assert.deepEqual(
      uuidsOf(
        (await funnel({ funnel_step: '3', funnel_window_interval: '2', funnel_window_interval_unit: 'week' })).body,
      ),
      converted,
    );
    assert.deepEqual(
      uuidsOf(
        (await funnel({ funnel_step: '3', funnel_window_interval: '1', funnel_window_interval_unit: 'month' })).body,
      ),
      withLate,
    );
    // The window's end is inclusive: these convert exactly 48 hours after their start.
    assert.deepEqual(
      uuidsOf(
        (await funnel({ funnel_step: '3', funnel_window_interval: '2880', funnel_window_interval_unit: 'minute' }))
          .body,
      ),
      converted,
    );
    assert.deepEqual(
      uuidsOf(
        (await funnel({ funnel_step: '3', funnel_window_interval: '2879', funnel_window_interval_unit: 'minute' }))
          .body,
      ),
      [],
    );
  });

  it('strict funnels need each step to be the very next event', async () => {
    const res = await funnel({ funnel_step: '3', funnel_order_type: 'strict' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('full', 'retry'));
    assert.deepEqual(
      uuidsOf((await funnel({ funnel_step: '-2', funnel_order_type: 'strict' })).body),
      names('dropAt1', 'wrongOrder', 'strictBreak', 'excluded'),
    );
  });

  it('unordered funnels accept the steps in any order', async () => {
    const res = await funnel({ funnel_step: '3', funnel_order_type: 'unordered' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('full', 'strictBreak', 'retry', 'excluded', 'wrongOrder'));
    assert.deepEqual(
      uuidsOf((await funnel({ funnel_step: '-3', funnel_order_type: 'unordered' })).body),
      names('dropAt2', 'late'),
    );
  });

  it('discards attempts with an exclusion event between the steps', async () => {
    const exclusions = [{ id: 'cancel', type: 'events', funnel_from_step: 0, funnel_to_step: 2 }];
    const res = await funnel({ funnel_step: '1', exclusions });
    assert.equal(res.status, 200, res.text);
    assert.ok(!uuidsOf(res.body).includes(p.excluded.uuid));
    assert.ok(uuidsOf(res.body).includes(p.full.uuid));
    // The cancel happened between steps 1 and 2: an exclusion spanning steps 2..3 does not see it.
    const later = await funnel({
      funnel_step: '3',
      exclusions: [{ id: 'cancel', type: 'events', funnel_from_step: 1, funnel_to_step: 2 }],
    });
    assert.deepEqual(uuidsOf(later.body), names('full', 'strictBreak', 'retry', 'excluded'));
    const earlier = await funnel({
      funnel_step: '3',
      exclusions: [{ id: 'cancel', type: 'events', funnel_from_step: 0, funnel_to_step: 1 }],
    });
    assert.deepEqual(uuidsOf(earlier.body), names('full', 'strictBreak', 'retry'));
    const unordered = await funnel({ funnel_step: '3', funnel_order_type: 'unordered', exclusions });
    assert.ok(!uuidsOf(unordered.body).includes(p.excluded.uuid));
  });

  it('narrows by a cohort: its members whose first-touch event meets the cohort (static, and dynamic holding one)', async () => {
    const cohort = async (payload: Record<string, unknown>) => {
      const res = await a.ctx.app.inject({
        method: 'POST',
        url: `/api/projects/${a.teamId}/cohorts/`,
        headers: a.tenant.headers,
        payload,
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().id as number;
    };
    const some = await cohort({ name: 'Some', is_static: true, distinct_ids: ['full', 'dropAt1', 'retry', 'outside'] });
    // The free members of Some: reads a person property beside the static members.
    const freeSome = await cohort({
      name: 'Free of some',
      filters: {
        properties: {
          type: 'AND',
          values: [
            { type: 'cohort', value: some },
            { key: 'plan', value: 'free' },
          ],
        },
      },
    });
    const base = { breakdown_type: 'cohort' };
    const reached = await funnel({ ...base, funnel_step: '1', funnel_step_breakdown: some });
    assert.equal(reached.status, 200, reached.text);
    assert.deepEqual(uuidsOf(reached.body), names('full', 'dropAt1', 'retry'));
    assert.deepEqual(
      uuidsOf((await funnel({ ...base, funnel_step: '3', funnel_step_breakdown: String(some) })).body),
      names('full', 'retry'),
    );
    assert.deepEqual(
      uuidsOf((await funnel({ ...base, funnel_step: '-2', funnel_step_breakdown: [some] })).body),
      names('dropAt1'),
    );
    const free = await funnel({ ...base, funnel_step: '1', funnel_step_breakdown: freeSome });
    assert.equal(free.status, 200, free.text);
    assert.deepEqual(uuidsOf(free.body), names('dropAt1', 'retry'));
    assert.deepEqual(
      uuidsOf((await funnel({ ...base, funnel_step: '3', funnel_step_breakdown: freeSome })).body),
      names('retry'),
    );
    const unknown = await funnel({ ...base, funnel_step: '1', funnel_step_breakdown: 999999 });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.attr, 'funnel_step_breakdown');
  });

  it('narrows by funnel_step_breakdown, a value and a one-element list being the same', async () => {
    const base = { breakdown: 'plan', breakdown_type: 'person' };
    const pro = await funnel({ ...base, funnel_step: '1', funnel_step_breakdown: 'pro' });
    assert.equal(pro.status, 200, pro.text);
    assert.deepEqual(uuidsOf(pro.body), names('full'));
    const free = await funnel({ ...base, funnel_step: '3', funnel_step_breakdown: ['free'] });
    assert.deepEqual(uuidsOf(free.body), names('strictBreak', 'retry', 'excluded'));
    const bad = await funnel({ ...base, funnel_step: '3', funnel_step_breakdown: ['free', 'pro'] });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.attr, 'funnel_step_breakdown');
  });

  it('reads POST bodies, body keys winning over the query string', async () => {
    const res = await a.post('funnel', { events: steps, ...range, funnel_step: 3 }, { funnel_step: '1' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('full', 'strictBreak', 'retry', 'excluded'));
  });

  it('answers funnel trends persons for one entrance period', async () => {
    const base = { funnel_viz_type: 'trends', entrance_period_start: '2024-01-02 00:00:00' };
    const converted = await funnel({ ...base, drop_off: 'false' });
    assert.equal(converted.status, 200, converted.text);
    // retry's Jan 2 attempt converts too: its purchase on Jan 12 is within 14 days.
    assert.deepEqual(uuidsOf(converted.body), names('full', 'strictBreak', 'retry'));
    const dropped = await funnel({ ...base, drop_off: 'true' });
    assert.deepEqual(uuidsOf(dropped.body), names('dropAt2', 'dropAt1'));
    const toStep2 = await funnel({ ...base, drop_off: 'true', funnel_from_step: '0', funnel_to_step: '1' });
    assert.deepEqual(uuidsOf(toStep2.body), names('dropAt1'));
    const missing = await funnel({ funnel_viz_type: 'trends', drop_off: 'true' });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.attr, 'entrance_period_start');
  });

  it('pages in uuid order', async () => {
    const first = await funnel({ funnel_step: '1', limit: '5' });
    assert.equal(first.body.results[0].people.length, 5);
    const second = await a.follow(first.body.next);
    assert.equal(second.status, 200, second.text);
    assert.equal(second.body.results[0].people.length, 3);
    assert.equal(second.body.next, null);
    const all = [...first.body.results[0].people, ...second.body.results[0].people].map(
      (person: { uuid: string }) => person.uuid,
    );
    assert.deepEqual(
      [...all].sort(),
      names('full', 'dropAt2', 'dropAt1', 'late', 'wrongOrder', 'strictBreak', 'retry', 'excluded'),
    );
    // The page is chosen by uuid: the first page holds the five smallest.
    assert.deepEqual(
      first.body.results[0].people.map((person: { uuid: string }) => person.uuid).sort(),
      [...all].sort().slice(0, 5),
    );
  });

  it('answers 400 for bad funnel parameters', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ funnel_step: '-1' }, 'funnel_step'],
      [{ funnel_step: 'two' }, 'funnel_step'],
      [{ funnel_step: '1.5' }, 'funnel_step'],
      [{}, 'funnel_step'],
      [{ funnel_step: '1', funnel_window_interval_unit: 'year' }, 'funnel_window_interval_unit'],
      [{ funnel_step: '1', funnel_order_type: 'random' }, 'funnel_order_type'],
      [{ funnel_step: '1', funnel_custom_steps: 'x' }, 'funnel_custom_steps'],
      [{ funnel_custom_steps: [1e300] }, 'funnel_custom_steps'],
      [{ funnel_step: '99999999999999999999' }, 'funnel_step'],
      [{ funnel_step: '1', funnel_window_interval: '0' }, 'funnel_window_interval'],
      [{ funnel_step: '1', exclusions: [{ id: 'x', funnel_from_step: 2, funnel_to_step: 1 }] }, 'exclusions'],
      [{ funnel_step: '1', events: [] }, 'events'],
      [{ funnel_step: '1', actions: [{ id: 3, type: 'actions' }] }, 'actions'],
      [{ funnel_step: '1', funnel_viz_type: 'sankey' }, 'funnel_viz_type'],
      [
        {
          funnel_step: '1',
          funnel_order_type: 'unordered',
          exclusions: [{ id: 'cancel', funnel_from_step: 0, funnel_to_step: 1 }],
        },
        'exclusions',
      ],
      // A date the range cannot be shifted from inside the database's calendar: a 400, not a 500.
      [{ funnel_step: '1', date_to: '9999-12-31' }, 'date_to'],
    ];
    for (const [params, attr] of cases) {
      const res = await funnel(params);
      assert.equal(res.status, 400, `${JSON.stringify(params)} → ${res.text}`);
      assert.equal(res.body.attr, attr, JSON.stringify(params));
    }
    const body = await a.post('funnel', [1, 2]);
    assert.equal(body.status, 400);
    // A body that is present must be an object, `null` included.
    const nullBody = await a.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${a.teamId}/persons/funnel/?funnel_step=1&events=${encodeURIComponent(JSON.stringify(steps))}`,
      headers: { ...a.tenant.headers, 'content-type': 'application/json' },
      payload: 'null',
    });
    assert.equal(nullBody.statusCode, 400, nullBody.body);
  });
});

describe('persons/funnel/correlation', () => {
  let a: AnalyticsContext;
  const p: Record<string, TestPerson> = {};
  before(async () => {
    a = await setupAnalytics();
    const db = a.ctx.deps.db;
    const journeys: Record<string, [string, string][]> = {
      // Converted, and asked for help between the first and last step.
      helped: [
        ['$pageview', '2024-01-02T10:00:00Z'],
        ['help', '2024-01-02T11:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['purchase', '2024-01-04T10:00:00Z'],
      ],
      // Converted; help only after the funnel ended.
      helpedAfter: [
        ['$pageview', '2024-01-02T10:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['purchase', '2024-01-04T10:00:00Z'],
        ['help', '2024-01-05T10:00:00Z'],
      ],
      // Dropped off; help within the window after the start.
      helpedDropped: [
        ['$pageview', '2024-01-02T10:00:00Z'],
        ['help', '2024-01-06T10:00:00Z'],
      ],
      // Help before the funnel started.
      helpedBefore: [
        ['help', '2024-01-01T10:00:00Z'],
        ['$pageview', '2024-01-02T10:00:00Z'],
      ],
    };
    for (const [name, events] of Object.entries(journeys)) {
      p[name] = await makePerson(db, a.teamId, {
        distinctIds: [name],
        properties: { plan: name === 'helpedAfter' ? 'pro' : 'free' },
      });
      await makeEvents(db, a.teamId, p[name], events);
    }
  });
  after(() => a.ctx.close());

  const names = (...list: string[]) => sortedUuids(...list.map((name) => p[name]));
  const entity = { id: 'help', type: 'events' };
  const correlation = (params: Record<string, unknown>) =>
    a.get('funnel/correlation', { events: steps, ...range, ...params });

  it('lists persons with the correlated event inside their funnel attempt', async () => {
    const res = await correlation({ funnel_correlation_person_entity: entity });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('helped', 'helpedDropped'));
    const converted = await correlation({
      funnel_correlation_person_entity: entity,
      funnel_correlation_person_converted: 'TrUe',
    });
    assert.deepEqual(uuidsOf(converted.body), names('helped'));
    const dropped = await correlation({
      funnel_correlation_person_entity: entity,
      funnel_correlation_person_converted: 'falsE',
    });
    assert.deepEqual(uuidsOf(dropped.body), names('helpedDropped'));
  });

  it('answers a funnel request naming a correlation entity with the correlation persons', async () => {
    const res = await a.get('funnel', {
      events: steps,
      ...range,
      funnel_correlation_person_entity: entity,
      funnel_correlation_person_converted: 'true',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('helped'));
  });

  it('lists persons matching correlated properties', async () => {
    const res = await correlation({
      funnel_correlation_type: 'properties',
      funnel_correlation_property_values: [{ key: 'plan', value: 'pro', type: 'person' }],
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('helpedAfter'));
  });

  it('pages with the correlation limit and offset', async () => {
    const first = await correlation({ funnel_correlation_person_entity: entity, funnel_correlation_person_limit: '1' });
    assert.equal(first.body.results[0].people.length, 1);
    assert.match(first.body.next, /funnel_correlation_person_offset=1/);
    const second = await a.follow(first.body.next);
    assert.equal(second.body.results[0].people.length, 1);
    assert.notEqual(second.body.results[0].people[0].uuid, first.body.results[0].people[0].uuid);
  });

  it('answers 400 without the entity or property values', async () => {
    const noEntity = await correlation({});
    assert.equal(noEntity.status, 400);
    assert.deepEqual(
      [noEntity.body.attr, noEntity.body.detail],
      ['funnel_correlation_person_entity', 'No entity for persons specified'],
    );
    const noValues = await correlation({ funnel_correlation_type: 'properties' });
    assert.equal(noValues.status, 400);
    assert.equal(noValues.body.attr, 'funnel_correlation_property_values');
  });
});
