import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupAnalytics, sortedUuids, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import type { TestPerson } from '../helpers/factories.ts';
import { getInsight, linkedUuids, makeJourneys, postInsight } from '../helpers/insights.ts';

const steps = [
  { id: '$pageview', type: 'events', order: 0 },
  { id: 'signup', type: 'events', order: 1, custom_name: 'Signed up' },
  { id: 'purchase', type: 'events', order: 2 },
];
const range = { date_from: '2024-01-01', date_to: '2024-01-19' };

describe('insights/funnel', () => {
  let a: AnalyticsContext;
  let p: Record<string, TestPerson>;
  before(async () => {
    a = await setupAnalytics();
    p = await makeJourneys(a, {
      // 1 day to sign up, 1 day to purchase.
      full: [
        ['$pageview', '2024-01-02T10:00:00Z', { browser: 'Chrome' }],
        ['signup', '2024-01-03T10:00:00Z'],
        ['purchase', '2024-01-04T10:00:00Z'],
      ],
      // 2 hours to sign up.
      dropAt2: [
        ['$pageview', '2024-01-02T10:00:00Z', { browser: 'Firefox' }],
        ['signup', '2024-01-02T12:00:00Z'],
      ],
      dropAt1: [['$pageview', '2024-01-05T10:00:00Z', { browser: 'Chrome' }]],
      // The purchase comes 17 days after the start: outside the 14-day window.
      late: [
        ['$pageview', '2024-01-01T10:00:00Z'],
        ['signup', '2024-01-01T11:00:00Z'],
        ['purchase', '2024-01-18T10:00:00Z'],
      ],
      wrongOrder: [
        ['purchase', '2024-01-02T10:00:00Z'],
        ['signup', '2024-01-03T10:00:00Z'],
        ['$pageview', '2024-01-04T10:00:00Z', { browser: 'Firefox' }],
      ],
    });
  });
  after(() => a.ctx.close());

  const names = (...list: string[]) => sortedUuids(...list.map((name) => p[name]));

  it('counts the persons reaching each step, with conversion times and converted/dropped links', async () => {
    const res = await getInsight(a, 'funnel', { events: steps, ...range });
    assert.equal(res.status, 200, res.text);
    const [first, second, third] = res.body.result;
    assert.deepEqual(Object.keys(first).sort(), [
      'action_id',
      'average_conversion_time',
      'converted_people_url',
      'count',
      'custom_name',
      'dropped_people_url',
      'median_conversion_time',
      'name',
      'order',
      'type',
    ]);
    assert.deepEqual([first.count, second.count, third.count], [5, 3, 1]);
    assert.deepEqual([first.action_id, first.name, first.order, first.type], ['$pageview', '$pageview', 0, 'events']);
    assert.equal(second.custom_name, 'Signed up');
    assert.equal(first.average_conversion_time, null);
    assert.equal(first.dropped_people_url, null);
    // Sign-ups: full 86 400 s, dropAt2 7 200 s, late 3 600 s.
    assert.equal(second.average_conversion_time, (86_400 + 7_200 + 3_600) / 3);
    assert.equal(second.median_conversion_time, 7_200);
    assert.equal(third.average_conversion_time, 86_400);
    assert.deepEqual(await linkedUuids(a, second.converted_people_url), names('full', 'dropAt2', 'late'));
    assert.deepEqual(await linkedUuids(a, second.dropped_people_url), names('dropAt1', 'wrongOrder'));
    assert.deepEqual(await linkedUuids(a, third.dropped_people_url), names('dropAt2', 'late'));
    assert.deepEqual(await linkedUuids(a, third.converted_people_url), names('full'));
  });

  it('follows the order type and the conversion window', async () => {
    const unordered = await getInsight(a, 'funnel', { events: steps, ...range, funnel_order_type: 'unordered' });
    assert.equal(unordered.status, 200, unordered.text);
    assert.deepEqual(
      unordered.body.result.map((step: { count: number }) => step.count),
      [5, 4, 2],
    );
    assert.equal(unordered.body.result[1].average_conversion_time, null);
    assert.deepEqual(await linkedUuids(a, unordered.body.result[2].converted_people_url), names('full', 'wrongOrder'));
    const wide = await postInsight(a, 'funnel', { events: steps, ...range, funnel_window_interval: 20 });
    assert.deepEqual(
      wide.body.result.map((step: { count: number }) => step.count),
      [5, 3, 2],
    );
    const strict = await getInsight(a, 'funnel', { events: steps, ...range, funnel_order_type: 'strict' });
    assert.deepEqual(
      strict.body.result.map((step: { count: number }) => step.count),
      [5, 3, 1],
    );
  });

  it("breaks down by the first step's event property: a list of steps per value", async () => {
    const res = await getInsight(a, 'funnel', { events: steps, ...range, breakdown: 'browser' });
    assert.equal(res.status, 200, res.text);
    const lists = res.body.result as { breakdown_value: string; count: number; converted_people_url: string }[][];
    // Most entrants first, ties by value.
    assert.deepEqual(
      lists.map((list) => list[0].breakdown_value),
      ['Chrome', 'Firefox', ''],
    );
    const byValue = Object.fromEntries(lists.map((list) => [list[0].breakdown_value, list.map((step) => step.count)]));
    assert.deepEqual(byValue, { Chrome: [2, 1, 1], Firefox: [2, 1, 0], '': [1, 1, 0] });
    const firefox = lists.find((list) => list[0].breakdown_value === 'Firefox') as { converted_people_url: string }[];
    assert.deepEqual(await linkedUuids(a, firefox[1].converted_people_url), names('dropAt2'));
    const none = lists.find((list) => list[0].breakdown_value === '') as { converted_people_url: string }[];
    assert.deepEqual(await linkedUuids(a, none[0].converted_people_url), names('late'));
  });

  it('breaks down by cohorts: a list of steps per cohort, linked to its members', async () => {
    const created = await a.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${a.teamId}/cohorts/`,
      headers: a.tenant.headers,
      payload: { name: 'Early', is_static: true, distinct_ids: ['full', 'dropAt1', 'wrongOrder'] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const early = created.json().id as number;
    const res = await getInsight(a, 'funnel', {
      events: steps,
      ...range,
      breakdown: [early, 'all'],
      breakdown_type: 'cohort',
    });
    assert.equal(res.status, 200, res.text);
    const [cohort, all] = res.body.result as {
      breakdown_value: number | string;
      count: number;
      average_conversion_time: number | null;
      converted_people_url: string;
      dropped_people_url: string | null;
    }[][];
    assert.deepEqual(
      cohort.map((step) => [step.breakdown_value, step.count]),
      [
        [early, 3],
        [early, 1],
        [early, 1],
      ],
    );
    assert.deepEqual(
      all.map((step) => [step.breakdown_value, step.count]),
      [
        ['all', 5],
        ['all', 3],
        ['all', 1],
      ],
    );
    // Only full signed up among Early: one day after its pageview.
    assert.equal(cohort[1].average_conversion_time, 86_400);
    assert.deepEqual(await linkedUuids(a, cohort[0].converted_people_url), names('full', 'dropAt1', 'wrongOrder'));
    assert.deepEqual(await linkedUuids(a, cohort[1].dropped_people_url as string), names('dropAt1', 'wrongOrder'));
    assert.deepEqual(await linkedUuids(a, cohort[2].converted_people_url), names('full'));
    assert.deepEqual(await linkedUuids(a, all[1].converted_people_url), names('full', 'dropAt2', 'late'));
  });

  it('answers the conversion rate per entrance period for funnel_viz_type=trends', async () => {
    const res = await getInsight(a, 'funnel', {
      events: steps,
      date_from: '2024-01-01',
      date_to: '2024-01-05',
      funnel_viz_type: 'trends',
    });
    assert.equal(res.status, 200, res.text);
    const [trend] = res.body.result;
    assert.deepEqual(trend.days, ['2024-01-01', '2024-01-02', '2024-01-03', '2024-01-04', '2024-01-05']);
    assert.equal(trend.count, 5);
    // Entered on the 2nd: full (converted) and dropAt2; on the 1st: late (purchase outside the range).
    assert.deepEqual(trend.reached_from_step_count, [1, 2, 0, 1, 1]);
    assert.deepEqual(trend.reached_to_step_count, [0, 1, 0, 0, 0]);
    assert.deepEqual(trend.data, [0, 50, 0, 0, 0]);
    assert.deepEqual(await linkedUuids(a, trend.converted_people_urls[1]), names('full'));
    assert.deepEqual(await linkedUuids(a, trend.dropped_people_urls[1]), names('dropAt2'));
    const partial = await getInsight(a, 'funnel', {
      events: steps,
      date_from: '2024-01-01',
      date_to: '2024-01-05',
      funnel_viz_type: 'trends',
      funnel_to_step: '1',
    });
    assert.deepEqual(partial.body.result[0].data, [100, 100, 0, 0, 0]);
  });

  it('counts steps past nine as numbers (ten steps of one event)', async () => {
    const ticks = (count: number, hour: number) =>
      Array.from({ length: count }, (_, i): [string, string] => ['tick', `2024-01-06T${hour}:0${i}:00Z`]);
    const { ten, nine } = await makeJourneys(a, { ten: ticks(10, 10), nine: ticks(9, 11) });
    const res = await getInsight(a, 'funnel', {
      events: Array.from({ length: 10 }, (_, order) => ({ id: 'tick', order })),
      ...range,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((step: { count: number }) => step.count),
      [2, 2, 2, 2, 2, 2, 2, 2, 2, 1],
    );
    assert.deepEqual(await linkedUuids(a, res.body.result[9].converted_people_url), [ten.uuid]);
    assert.deepEqual(await linkedUuids(a, res.body.result[9].dropped_people_url), [nine.uuid]);
  });

  it('answers 400 naming the parameter for bad input', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...range }, 'events'],
      [{ events: steps, funnel_order_type: 'sideways' }, 'funnel_order_type'],
      [{ events: steps, funnel_window_interval_unit: 'year' }, 'funnel_window_interval_unit'],
      [{ events: steps, funnel_viz_type: 'time_to_convert' }, 'funnel_viz_type'],
      [{ events: steps, funnel_viz_type: 'trends', funnel_from_step: '2', funnel_to_step: '1' }, 'funnel_from_step'],
      [{ events: steps, exclusions: [{ id: 'x', funnel_from_step: 1, funnel_to_step: 1 }] }, 'exclusions'],
      [{ events: steps, breakdown: 'browser', breakdown_type: 'hogql' }, 'breakdown_type'],
      [{ events: steps, breakdown: 'browser', funnel_viz_type: 'trends' }, 'breakdown'],
    ];
    for (const [params, attr] of cases) {
      const res = await getInsight(a, 'funnel', params);
      assert.equal(res.status, 400, `${JSON.stringify(params)}: ${res.text}`);
      assert.equal(res.body.attr, attr, JSON.stringify(params));
    }
  });
});
