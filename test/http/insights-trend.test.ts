import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupAnalytics, sortedUuids, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { makeProject, type TestPerson } from '../helpers/factories.ts';
import { followLink, getInsight, linkedUuids, makeJourneys, postInsight } from '../helpers/insights.ts';
import { post } from './capture-helpers.ts';

const pageviews = (math = 'total', extra: Record<string, unknown> = {}) => [{ id: '$pageview', math, ...extra }];
const week = { date_from: '2024-01-09', date_to: '2024-01-14' };

describe('insights/trend', () => {
  let a: AnalyticsContext;
  let p: Record<'alice' | 'bob' | 'carol', TestPerson>;
  before(async () => {
    a = await setupAnalytics();
    p = await makeJourneys(a, {
      alice: {
        properties: { email: 'alice@example.com', plan: 'pro' },
        createdAt: '2024-01-01T00:00:00Z',
        events: [
          ['$pageview', '2024-01-10T10:00:00Z', { browser: 'Chrome' }],
          ['$pageview', '2024-01-10T23:59:59Z', { browser: 'Chrome' }],
          ['$pageview', '2024-01-11T08:00:00Z', { browser: 'Chrome' }],
          ['purchase', '2024-01-12T09:00:00Z', { amount: 10 }],
        ],
      },
      bob: {
        properties: { plan: 'free' },
        createdAt: '2024-01-10T00:00:00Z',
        events: [
          ['$pageview', '2024-01-10T12:00:00Z', { browser: 'Firefox' }],
          ['$pageview', '2024-01-13T09:00:00Z', { browser: 'Firefox' }],
          ['purchase', '2024-01-13T10:00:00Z', { amount: 5.5 }],
        ],
      },
      carol: {
        createdAt: '2024-01-12T00:00:00Z',
        events: [
          ['$pageview', '2024-01-12T10:00:00Z'],
          ['$pageview', '2024-01-12T11:00:00Z'],
        ],
      },
    });
  });
  after(() => a.ctx.close());

  it('answers one series per entity: data per day, days, labels, count and a persons link per point', async () => {
    const res = await getInsight(a, 'trend', { events: pageviews('dau', { custom_name: 'Views' }), ...week });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.next, null);
    const [series] = res.body.result;
    assert.deepEqual(series.action, {
      id: '$pageview',
      type: 'events',
      order: 0,
      name: '$pageview',
      custom_name: 'Views',
      math: 'dau',
      math_property: null,
    });
    assert.equal(series.label, 'Views');
    assert.deepEqual(series.days, ['2024-01-09', '2024-01-10', '2024-01-11', '2024-01-12', '2024-01-13', '2024-01-14']);
    assert.deepEqual(series.labels, [
      '9-Jan-2024',
      '10-Jan-2024',
      '11-Jan-2024',
      '12-Jan-2024',
      '13-Jan-2024',
      '14-Jan-2024',
    ]);
    assert.deepEqual(series.data, [0, 2, 1, 1, 1, 0]);
    assert.equal(series.count, 5);
    assert.equal(series.persons_urls.length, 6);
    assert.deepEqual(await linkedUuids(a, series.persons_urls[1].url), sortedUuids(p.alice, p.bob));
    assert.deepEqual(await linkedUuids(a, series.persons_urls[3].url), [p.carol.uuid]);
    assert.deepEqual(await linkedUuids(a, series.persons_urls[0].url), []);
    assert.match(series.persons_urls[1].url, new RegExp(`^/api/projects/${a.teamId}/persons/trends/\\?`));
  });

  it('counts events for math=total, several entities in order, and the same answer by POST', async () => {
    const body = {
      events: [
        { id: 'purchase', order: 1 },
        { id: '$pageview', order: 0 },
      ],
      ...week,
    };
    const res = await postInsight(a, 'trend', body);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((s: { label: string }) => s.label),
      ['$pageview', 'purchase'],
    );
    assert.deepEqual(res.body.result[0].data, [0, 3, 1, 2, 1, 0]);
    assert.deepEqual(res.body.result[1].data, [0, 0, 0, 1, 1, 0]);
    assert.equal(res.body.result[1].action.order, 1);
    assert.deepEqual(await linkedUuids(a, res.body.result[1].persons_urls[4].url), [p.bob.uuid]);
    const get = await getInsight(a, 'trend', body);
    assert.deepEqual(get.body, res.body);
  });

  it('aggregates a property with math sum', async () => {
    const res = await getInsight(a, 'trend', {
      events: [{ id: 'purchase', math: 'sum', math_property: 'amount' }],
      ...week,
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.result[0].data, [0, 0, 0, 10, 5.5, 0]);
    assert.equal(res.body.result[0].count, 15.5);
  });

  it('breaks down by an event property: a series per value, most events first, a missing value as ""', async () => {
    const res = await getInsight(a, 'trend', { events: pageviews('dau'), ...week, breakdown: 'browser' });
    assert.equal(res.status, 200, res.text);
    // Firefox and the missing value tie on events; ties go by value.
    assert.deepEqual(
      res.body.result.map((s: { breakdown_value: string }) => s.breakdown_value),
      ['Chrome', '', 'Firefox'],
    );
    const [chrome, none, firefox] = res.body.result;
    assert.equal(chrome.label, '$pageview - Chrome');
    assert.deepEqual(chrome.data, [0, 1, 1, 0, 0, 0]);
    assert.deepEqual(firefox.data, [0, 1, 0, 0, 1, 0]);
    assert.deepEqual(none.data, [0, 0, 0, 1, 0, 0]);
    assert.deepEqual(await linkedUuids(a, firefox.persons_urls[1].url), [p.bob.uuid]);
    assert.deepEqual(await linkedUuids(a, none.persons_urls[3].url), [p.carol.uuid]);
    const limited = await getInsight(a, 'trend', {
      events: pageviews('dau'),
      ...week,
      breakdown: 'browser',
      breakdown_limit: '1',
    });
    assert.deepEqual(
      limited.body.result.map((s: { breakdown_value: string }) => s.breakdown_value),
      ['Chrome'],
    );
  });

  it('breaks down by a person property and by cohorts', async () => {
    const byPlan = await getInsight(a, 'trend', {
      events: pageviews('dau'),
      ...week,
      breakdown: 'plan',
      breakdown_type: 'person',
    });
    assert.equal(byPlan.status, 200, byPlan.text);
    const pro = byPlan.body.result.find((s: { breakdown_value: string }) => s.breakdown_value === 'pro');
    assert.deepEqual(pro.data, [0, 1, 1, 0, 0, 0]);
    const cohort = await a.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${a.teamId}/cohorts/`,
      headers: a.tenant.headers,
      payload: { name: 'Early birds', is_static: true, distinct_ids: ['alice', 'carol'] },
    });
    assert.equal(cohort.statusCode, 201, cohort.body);
    const id = cohort.json().id;
    const res = await getInsight(a, 'trend', {
      events: pageviews('dau'),
      ...week,
      breakdown: [id, 'all'],
      breakdown_type: 'cohort',
    });
    assert.equal(res.status, 200, res.text);
    const [early, all] = res.body.result;
    assert.equal(early.breakdown_value, id);
    assert.equal(early.label, '$pageview - Early birds');
    assert.deepEqual(early.data, [0, 1, 1, 1, 0, 0]);
    assert.deepEqual(all.data, [0, 2, 1, 1, 1, 0]);
    assert.deepEqual(await linkedUuids(a, early.persons_urls[1].url), [p.alice.uuid]);
    const unknown = await getInsight(a, 'trend', {
      events: pageviews('dau'),
      ...week,
      breakdown: [999999],
      breakdown_type: 'cohort',
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.attr, 'breakdown');
  });

  it('answers one aggregated_value over the range for ActionsTable, BoldNumber and ActionsPie', async () => {
    for (const display of ['ActionsTable', 'BoldNumber', 'ActionsPie']) {
      const res = await getInsight(a, 'trend', { events: pageviews('dau'), ...week, display });
      assert.equal(res.status, 200, res.text);
      const [series] = res.body.result;
      assert.equal(series.aggregated_value, 3);
      assert.equal(series.count, 3);
      assert.deepEqual(series.data, []);
      assert.deepEqual(series.persons_urls, [series.persons]);
      assert.deepEqual(await linkedUuids(a, series.persons.url), sortedUuids(p.alice, p.bob, p.carol));
    }
    const total = await getInsight(a, 'trend', {
      events: pageviews(),
      ...week,
      display: 'ActionsTable',
      breakdown: 'browser',
    });
    assert.deepEqual(
      total.body.result.map((s: { aggregated_value: number }) => s.aggregated_value),
      [3, 2, 2],
    );
  });

  it('runs totals for the cumulative display, each point linked to everyone since the range start', async () => {
    const res = await getInsight(a, 'trend', {
      events: pageviews('dau'),
      ...week,
      display: 'ActionsLineGraphCumulative',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.result[0].data, [0, 2, 2, 3, 3, 3]);
    assert.deepEqual(
      await linkedUuids(a, res.body.result[0].persons_urls[3].url),
      sortedUuids(p.alice, p.bob, p.carol),
    );
    const total = await getInsight(a, 'trend', { events: pageviews(), ...week, display: 'ActionsLineGraphCumulative' });
    assert.deepEqual(total.body.result[0].data, [0, 3, 4, 6, 7, 7]);
  });

  it('counts the trailing week for weekly_active, and refuses it by the hour', async () => {
    const res = await getInsight(a, 'trend', {
      events: pageviews('weekly_active'),
      date_from: '2024-01-16',
      date_to: '2024-01-20',
    });
    assert.equal(res.status, 200, res.text);
    // 16th: 10th..16th holds all three; 17th: 11th..17th too; 18th: 12th..18th carol and bob; 19th: bob only.
    assert.deepEqual(res.body.result[0].data, [3, 3, 2, 1, 0]);
    assert.deepEqual(await linkedUuids(a, res.body.result[0].persons_urls[3].url), [p.bob.uuid]);
    const hourly = await getInsight(a, 'trend', {
      events: pageviews('weekly_active'),
      interval: 'hour',
      date_from: '2024-01-10',
      date_to: '2024-01-10',
    });
    assert.equal(hourly.status, 400);
    assert.equal(hourly.body.attr, 'interval');
  });

  it('counts monthly actives over a range longer than one pass holds (64 days a pass)', async () => {
    // 101 days: three passes of 35 days each for monthly_active. Pageview days: alice Jan 10 and 11,
    // bob Jan 10 and 13, carol Jan 12; a person counts on each day from one of theirs to 29 after.
    const res = await getInsight(a, 'trend', {
      events: pageviews('monthly_active'),
      date_from: '2023-12-01',
      date_to: '2024-03-10',
    });
    assert.equal(res.status, 200, res.text);
    const seen = [['2024-01-10', '2024-01-11'], ['2024-01-10', '2024-01-13'], ['2024-01-12']].map((days) =>
      days.map((day) => Date.parse(day)),
    );
    const DAY = 86_400_000;
    const expected = Array.from({ length: 101 }, (_, i) => {
      const on = Date.parse('2023-12-01') + i * DAY;
      return seen.filter((days) => days.some((day) => day <= on && on <= day + 29 * DAY)).length;
    });
    assert.equal(res.body.result[0].days.length, 101);
    assert.deepEqual(res.body.result[0].data, expected);
    // Feb 9, the 71st day: alice's last day (Jan 11) + 29, in the range's third pass.
    assert.equal(res.body.result[0].days[70], '2024-02-09');
    assert.deepEqual(
      await linkedUuids(a, res.body.result[0].persons_urls[70].url),
      sortedUuids(p.alice, p.bob, p.carol),
    );
    assert.deepEqual(await linkedUuids(a, res.body.result[0].persons_urls[71].url), sortedUuids(p.bob, p.carol));
  });

  it('buckets weeks from Sunday and hours with their own day texts and labels', async () => {
    const weekly = await getInsight(a, 'trend', { events: pageviews('dau'), interval: 'week', ...week });
    assert.equal(weekly.status, 200, weekly.text);
    assert.deepEqual(weekly.body.result[0].days, ['2024-01-07', '2024-01-14']);
    assert.deepEqual(weekly.body.result[0].data, [3, 0]);
    assert.deepEqual(
      await linkedUuids(a, weekly.body.result[0].persons_urls[0].url),
      sortedUuids(p.alice, p.bob, p.carol),
    );
    const hourly = await getInsight(a, 'trend', {
      events: pageviews(),
      interval: 'hour',
      date_from: '2024-01-12 09:00',
      date_to: '2024-01-12 11:00',
    });
    assert.equal(hourly.status, 200, hourly.text);
    assert.deepEqual(hourly.body.result[0].days, ['2024-01-12 09:00:00', '2024-01-12 10:00:00', '2024-01-12 11:00:00']);
    assert.deepEqual(hourly.body.result[0].labels, ['12-Jan-2024 09:00', '12-Jan-2024 10:00', '12-Jan-2024 11:00']);
    assert.deepEqual(hourly.body.result[0].data, [0, 1, 1]);
    assert.deepEqual(await linkedUuids(a, hourly.body.result[0].persons_urls[2].url), [p.carol.uuid]);
  });

  it('answers stickiness: persons active in exactly N intervals, linked with stickiness_days', async () => {
    const res = await getInsight(a, 'trend', { events: pageviews(), ...week, shown_as: 'Stickiness' });
    assert.equal(res.status, 200, res.text);
    const [series] = res.body.result;
    assert.deepEqual(series.days, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(series.labels.slice(0, 2), ['1 day', '2 days']);
    // alice: 10th and 11th; bob: 10th and 13th; carol: 12th.
    assert.deepEqual(series.data, [1, 2, 0, 0, 0, 0]);
    assert.deepEqual(await linkedUuids(a, series.persons_urls[1].url), sortedUuids(p.alice, p.bob));
    assert.match(series.persons_urls[1].url, /\/persons\/stickiness\/\?.*stickiness_days=2/);
  });

  it('answers lifecycle: four status series, dormant negative, linked with target_date and lifecycle_type', async () => {
    const res = await getInsight(a, 'trend', {
      events: pageviews(),
      date_from: '2024-01-10',
      date_to: '2024-01-14',
      shown_as: 'Lifecycle',
    });
    assert.equal(res.status, 200, res.text);
    const byStatus = Object.fromEntries(
      res.body.result.map((s: { status: string; data: number[] }) => [s.status, s.data]),
    );
    assert.deepEqual(Object.keys(byStatus), ['new', 'returning', 'resurrecting', 'dormant']);
    // alice (created 1st): 10th resurrecting, 11th returning; bob (created 10th): 10th new, 13th resurrecting; carol: 12th new.
    assert.deepEqual(byStatus.new, [1, 0, 1, 0, 0]);
    assert.deepEqual(byStatus.returning, [0, 1, 0, 0, 0]);
    assert.deepEqual(byStatus.resurrecting, [1, 0, 0, 1, 0]);
    assert.deepEqual(byStatus.dormant, [0, -1, -1, -1, -1]);
    const dormant = res.body.result[3];
    assert.equal(dormant.label, '$pageview - dormant');
    assert.equal(dormant.count, -4);
    assert.deepEqual(await linkedUuids(a, dormant.persons_urls[2].url), [p.alice.uuid]);
    assert.deepEqual(await linkedUuids(a, res.body.result[0].persons_urls[0].url), [p.bob.uuid]);
  });

  it('answers lifecycle alike over a range longer than one day mask (63 days) holds', async () => {
    const short = await getInsight(a, 'trend', {
      events: pageviews(),
      date_from: '2024-01-10',
      date_to: '2024-01-14',
      shown_as: 'Lifecycle',
    });
    const long = await getInsight(a, 'trend', {
      events: pageviews(),
      date_from: '2023-11-01',
      date_to: '2024-01-14',
      shown_as: 'Lifecycle',
    });
    assert.equal(long.status, 200, long.text);
    for (const [i, series] of long.body.result.entries()) {
      assert.equal(series.data.length, 75);
      assert.deepEqual(series.data.slice(-5), short.body.result[i].data, series.status);
      assert.ok(
        series.data.slice(0, -5).every((value: number) => value === 0),
        series.status,
      );
    }
  });

  it('answers 400 naming the parameter for bad input', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...week }, 'events'],
      [{ events: '[not json', ...week }, 'events'],
      [{ events: pageviews(), actions: [{ id: 1 }] }, 'actions'],
      [{ events: pageviews(), interval: 'year' }, 'interval'],
      [{ events: pageviews(), date_from: 'yesterday' }, 'date_from'],
      [{ events: pageviews('no_such_math') }, 'events'],
      [{ events: [{ id: 'purchase', math: 'sum' }] }, 'events'],
      [{ events: pageviews(), shown_as: 'Paths' }, 'shown_as'],
      [{ events: pageviews(), breakdown: 'browser', breakdown_type: 'group' }, 'breakdown_type'],
      [{ events: pageviews(), breakdown: 'browser', breakdown_limit: '0' }, 'breakdown_limit'],
      [{ events: pageviews(), properties: '{bad' }, 'properties'],
      [{ events: pageviews(), shown_as: 'Stickiness', breakdown: 'browser' }, 'breakdown'],
      [{ events: pageviews(), interval: 'hour', date_from: '2020-01-01' }, 'interval'],
    ];
    for (const [params, attr] of cases) {
      const res = await getInsight(a, 'trend', params);
      assert.equal(res.status, 400, `${JSON.stringify(params)}: ${res.text}`);
      assert.equal(res.body.type, 'validation_error');
      assert.equal(res.body.attr, attr, JSON.stringify(params));
    }
    const list = await a.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${a.teamId}/insights/trend/`,
      headers: { ...a.tenant.headers, 'content-type': 'application/json' },
      payload: '[1]',
    });
    assert.equal(list.statusCode, 400, list.body);
  });

  it('counts an event captured by the request just before, and links to its person', async () => {
    const project = await makeProject(a.ctx.deps.db, a.tenant.organization);
    const params = { events: [{ id: 'fresh', math: 'dau' }], date_from: '2024-01-20', date_to: '2024-01-20' };
    const before = await getInsight(a, 'trend', params, project.id);
    assert.deepEqual(before.body.result[0].data, [0]);
    const captured = await post(a.ctx.app, '/batch/', {
      api_key: project.api_token,
      batch: [{ event: 'fresh', distinct_id: 'newcomer', timestamp: '2024-01-20T09:00:00Z' }],
    });
    assert.equal(captured.statusCode, 200, captured.body);
    const after = await getInsight(a, 'trend', params, project.id);
    assert.deepEqual(after.body.result[0].data, [1]);
    const linked = await followLink(a, after.body.result[0].persons_urls[0].url);
    assert.deepEqual(
      linked.body.results[0].people.map((person: { distinct_ids: string[] }) => person.distinct_ids),
      [['newcomer']],
    );
  });

  it('links only to paths the same key can read', async () => {
    const res = await getInsight(a, 'trend', { events: pageviews('dau'), ...week });
    for (const { url } of res.body.result[0].persons_urls) {
      const linked = await followLink(a, url);
      assert.equal(linked.status, 200, linked.text);
    }
  });
});
