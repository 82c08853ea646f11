import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupAnalytics, sortedUuids, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import type { TestPerson } from '../helpers/factories.ts';
import { followLink, getInsight, linkedUuids, makeJourneys, postInsight } from '../helpers/insights.ts';

describe('insights/retention', () => {
  let a: AnalyticsContext;
  let p: Record<'alice' | 'bob' | 'carol', TestPerson>;
  before(async () => {
    a = await setupAnalytics();
    p = await makeJourneys(a, {
      alice: [
        ['$pageview', '2024-01-10T10:00:00Z'],
        ['$pageview', '2024-01-11T10:00:00Z'],
        ['$pageview', '2024-01-13T10:00:00Z'],
      ],
      bob: [
        ['$pageview', '2024-01-10T12:00:00Z'],
        ['signup', '2024-01-12T12:00:00Z'],
      ],
      carol: [
        ['$pageview', '2024-01-09T12:00:00Z'],
        ['$pageview', '2024-01-11T12:00:00Z'],
      ],
    });
  });
  after(() => a.ctx.close());

  const table = (res: { body: { result: { values: { count: number }[] }[] } }) =>
    res.body.result.map((row) => row.values.map((value) => value.count));

  it("answers a row per cohort period: size first, then the returners of each later period, linked to the cohort's persons", async () => {
    const res = await getInsight(a, 'retention', { date_to: '2024-01-13', total_intervals: '4' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((row: { label: string }) => row.label),
      ['Day 0', 'Day 1', 'Day 2', 'Day 3'],
    );
    assert.deepEqual(
      res.body.result.map((row: { date: string }) => row.date),
      ['2024-01-10T00:00:00Z', '2024-01-11T00:00:00Z', '2024-01-12T00:00:00Z', '2024-01-13T00:00:00Z'],
    );
    // Cohort of the 10th: alice, bob; alice back on the 11th and 13th. Of the 11th: alice, carol.
    assert.deepEqual(table(res), [[2, 1, 0, 1], [2, 0, 1], [0, 0], [1]]);
    const persons = await followLink(a, res.body.result[0].people_url);
    assert.equal(persons.status, 200, persons.text);
    const appearances = Object.fromEntries(
      persons.body.result.map((row: { person: { uuid: string }; appearances: number[] }) => [
        row.person.uuid,
        row.appearances,
      ]),
    );
    assert.deepEqual(appearances, { [p.alice.uuid]: [1, 1, 0, 1], [p.bob.uuid]: [1, 0, 0, 0] });
    assert.deepEqual(await linkedUuids(a, res.body.result[1].values[0].people_url), sortedUuids(p.alice, p.carol));
  });

  it('takes a returning entity, first-time cohorts and weeks; POST answers the same', async () => {
    const returning = await getInsight(a, 'retention', {
      date_to: '2024-01-13',
      total_intervals: '4',
      returning_entity: { id: 'signup', type: 'events' },
    });
    assert.deepEqual(table(returning), [[2, 0, 1, 0], [2, 0, 0], [0, 0], [1]]);
    const first = await getInsight(a, 'retention', {
      date_to: '2024-01-13',
      total_intervals: '4',
      retention_type: 'retention_first_time',
    });
    // carol's first pageview (the 9th) lies before the window: she is in no cohort.
    assert.deepEqual(table(first), [[2, 1, 0, 1], [0, 0, 0], [0, 0], [0]]);
    const weekly = await postInsight(a, 'retention', { date_to: '2024-01-13', total_intervals: 2, period: 'Week' });
    assert.equal(weekly.status, 200, weekly.text);
    assert.deepEqual(
      weekly.body.result.map((row: { label: string }) => row.label),
      ['Week 0', 'Week 1'],
    );
    // The window starts on the Sunday before: week 0 is Dec 31 .. Jan 6, week 1 holds everyone.
    assert.deepEqual(table(weekly), [[0, 0], [3]]);
    assert.equal(weekly.body.result[1].date, '2024-01-07T00:00:00Z');
  });

  it('answers 400 naming the parameter for bad input', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ period: 'Year' }, 'period'],
      [{ total_intervals: '0' }, 'total_intervals'],
      [{ retention_type: 'sometimes' }, 'retention_type'],
      [{ target_entity: '{"id": 3' }, 'target_entity'],
      [{ target_entity: { id: 1, type: 'actions' } }, 'target_entity'],
      [{ date_to: 'soon' }, 'date_to'],
    ];
    for (const [params, attr] of cases) {
      const res = await getInsight(a, 'retention', params);
      assert.equal(res.status, 400, `${JSON.stringify(params)}: ${res.text}`);
      assert.equal(res.body.attr, attr, JSON.stringify(params));
    }
  });
});

describe('insights/path', () => {
  let a: AnalyticsContext;
  let p: Record<'alice' | 'bob', TestPerson>;
  before(async () => {
    a = await setupAnalytics();
    const view = (url: string) => ({ $current_url: url });
    p = await makeJourneys(a, {
      alice: [
        ['$pageview', '2024-01-10T10:00:00Z', view('https://x.io/home/')],
        ['$pageview', '2024-01-10T10:01:00Z', view('https://x.io/pricing')],
        ['signup', '2024-01-10T10:03:00Z'],
        // A new session (over 30 minutes later) takes the same first edge again.
        ['$pageview', '2024-01-11T10:00:00Z', view('https://x.io/home')],
        ['$pageview', '2024-01-11T10:02:00Z', view('https://x.io/pricing')],
      ],
      bob: [
        ['$pageview', '2024-01-10T12:00:00Z', view('https://x.io/home')],
        ['$pageview', '2024-01-10T12:00:30Z', view('https://x.io/home')],
        ['$pageview', '2024-01-10T12:02:00Z', view('https://x.io/docs')],
      ],
    });
  });
  after(() => a.ctx.close());

  it('answers edges between `<step>_<item>` nodes with their persons, mean milliseconds and a persons link', async () => {
    const res = await getInsight(a, 'path', { date_from: '2024-01-09', date_to: '2024-01-12' });
    assert.equal(res.status, 200, res.text);
    const edges = res.body.result.map(
      (edge: { source: string; target: string; value: number; average_conversion_time: number }) => [
        edge.source,
        edge.target,
        edge.value,
        edge.average_conversion_time,
      ],
    );
    assert.deepEqual(
      edges,
      [
        ['1_https://x.io/home', '2_https://x.io/pricing', 1, 90_000],
        ['1_https://x.io/home', '2_https://x.io/docs', 1, 120_000],
        ['2_https://x.io/pricing', '3_signup', 1, 120_000],
      ].sort(
        (x, y) => (x[0] as string).localeCompare(y[0] as string) || (x[1] as string).localeCompare(y[1] as string),
      ),
    );
    const home = res.body.result.find((edge: { target: string }) => edge.target === '2_https://x.io/docs');
    assert.deepEqual(await linkedUuids(a, home.people_url), [p.bob.uuid]);
    const pricing = res.body.result.find((edge: { target: string }) => edge.target === '2_https://x.io/pricing');
    assert.deepEqual(await linkedUuids(a, pricing.people_url), [p.alice.uuid]);
  });

  it('applies start points, step limits, edge limits and weights; POST answers the same', async () => {
    const started = await postInsight(a, 'path', {
      date_from: '2024-01-09',
      date_to: '2024-01-12',
      start_point: 'https://x.io/pricing',
    });
    assert.deepEqual(
      started.body.result.map((edge: { source: string; target: string }) => `${edge.source}>${edge.target}`),
      ['1_https://x.io/pricing>2_signup'],
    );
    const short = await getInsight(a, 'path', { date_from: '2024-01-09', date_to: '2024-01-12', step_limit: '2' });
    assert.equal(short.body.result.length, 2);
    const one = await getInsight(a, 'path', { date_from: '2024-01-09', date_to: '2024-01-12', edge_limit: '1' });
    assert.equal(one.body.result.length, 1);
    const heavy = await getInsight(a, 'path', { date_from: '2024-01-09', date_to: '2024-01-12', min_edge_weight: '2' });
    assert.deepEqual(heavy.body.result, []);
    const bad = await getInsight(a, 'path', { min_edge_weight: '3', max_edge_weight: '1' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.attr, 'min_edge_weight');
    const types = await getInsight(a, 'path', { include_event_types: ['$autocapture'] });
    assert.equal(types.status, 400);
    assert.equal(types.body.attr, 'include_event_types');
  });
});
