// The console's pure pieces: what it asks the insight endpoints, how an answer in the shapes of the
// insights issue becomes a chart with a persons link per point, which links it will follow, and the
// filter group its builder sends.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filterGroup, type FilterState } from '../../console/src/filters/filter-model.ts';
import {
  chartModel,
  insightRequest,
  personsOf,
  personsPath,
  type InsightForm,
} from '../../console/src/insights/insight-query.ts';

const form = (change: Partial<InsightForm>): InsightForm => ({
  kind: 'trends',
  events: '$pageview, signed up',
  math: 'dau',
  interval: 'day',
  dateFrom: '-7d',
  dateTo: '',
  ...change,
});

describe('console: insight requests', () => {
  it('asks the trend endpoint for each event with its measure, and stickiness and lifecycle through shown_as', () => {
    const trends = insightRequest(7, form({}));
    assert.equal(trends.path, '/api/projects/7/insights/trend/');
    assert.deepEqual(JSON.parse(String(trends.query.events)), [
      { id: '$pageview', type: 'events', order: 0, math: 'dau' },
      { id: 'signed up', type: 'events', order: 1, math: 'dau' },
    ]);
    assert.equal(trends.query.interval, 'day');
    assert.equal(trends.query.date_from, '-7d');
    assert.equal(insightRequest(7, form({ kind: 'stickiness' })).query.shown_as, 'Stickiness');
    assert.equal(insightRequest(7, form({ kind: 'lifecycle' })).query.shown_as, 'Lifecycle');
    assert.equal(insightRequest(7, form({ kind: 'funnel' })).path, '/api/projects/7/insights/funnel/');
    assert.equal(insightRequest(7, form({ kind: 'paths' })).path, '/api/projects/7/insights/path/');
  });

  it('asks retention for the first event as target, the second as returning, by a capitalized period', () => {
    const retention = insightRequest(7, form({ kind: 'retention', interval: 'week' }));
    assert.equal(retention.path, '/api/projects/7/insights/retention/');
    assert.deepEqual(JSON.parse(String(retention.query.target_entity)), { id: '$pageview', type: 'events' });
    assert.deepEqual(JSON.parse(String(retention.query.returning_entity)), { id: 'signed up', type: 'events' });
    assert.equal(retention.query.period, 'Week');
  });
});

describe('console: insight answers as charts', () => {
  it('draws a trend series per result with the persons link of every point', () => {
    const model = chartModel(form({}), 7, {
      result: [
        {
          label: '$pageview',
          data: [3, 0],
          labels: ['1-Jan-2024', '2-Jan-2024'],
          days: ['2024-01-01', '2024-01-02'],
          breakdown_value: 'Chrome',
          persons_urls: [{ url: '/a' }, { url: '/b' }],
        },
        {
          label: '$pageview',
          data: [1, 2],
          labels: ['1-Jan-2024', '2-Jan-2024'],
          breakdown_value: 'Safari',
          persons_urls: [{ url: '/c' }, { url: '/d' }],
        },
      ],
    });
    assert.deepEqual(model.labels, ['1-Jan-2024', '2-Jan-2024']);
    assert.deepEqual(
      model.series.map((series) => series.label),
      ['$pageview · Chrome', '$pageview · Safari'],
    );
    assert.deepEqual(model.series[1].values, [1, 2]);
    assert.deepEqual(model.series[1].urls, ['/c', '/d']);
    assert.equal(model.style, 'line');
  });

  it('names lifecycle series by status and draws them as bars', () => {
    const model = chartModel(form({ kind: 'lifecycle' }), 7, {
      result: [
        { label: '$pageview', status: 'dormant', data: [-2], labels: ['1-Jan-2024'], persons_urls: [{ url: '/x' }] },
      ],
    });
    assert.equal(model.series[0].label, '$pageview · dormant');
    assert.deepEqual(model.series[0].values, [-2]);
    assert.equal(model.style, 'bars');
  });

  it('draws a funnel as converted and dropped-off counts per step, with their persons links', () => {
    const model = chartModel(form({ kind: 'funnel' }), 7, {
      result: [
        { name: '$pageview', order: 0, count: 10, converted_people_url: '/s1', dropped_people_url: null },
        {
          name: 'signed up',
          custom_name: 'Sign-up',
          order: 1,
          count: 4,
          converted_people_url: '/s2',
          dropped_people_url: '/d2',
        },
      ],
    });
    assert.deepEqual(model.labels, ['1. $pageview', '2. Sign-up']);
    assert.deepEqual(
      model.series.map((series) => [series.label, series.values, series.urls]),
      [
        ['Converted', [10, 4], ['/s1', '/s2']],
        ['Dropped off', [0, 6], [null, '/d2']],
      ],
    );
  });

  it('draws a broken-down funnel as a pair of series per value', () => {
    const step = (breakdown: string, count: number, order: number) => ({
      name: 'e',
      order,
      count,
      breakdown_value: breakdown,
      converted_people_url: `/${breakdown}${order}`,
    });
    const model = chartModel(form({ kind: 'funnel' }), 7, {
      result: [
        [step('a', 5, 0), step('a', 2, 1)],
        [step('b', 3, 0), step('b', 3, 1)],
      ],
    });
    assert.deepEqual(
      model.series.map((series) => series.label),
      ['Converted · a', 'Dropped off · a', 'Converted · b', 'Dropped off · b'],
    );
    assert.deepEqual(model.series[1].values, [0, 3]);
    assert.deepEqual(model.series[2].urls, ['/b0', '/b1']);
  });

  it("draws retention as a line per cohort, a cell's people link per period", () => {
    const model = chartModel(form({ kind: 'retention', interval: 'day' }), 7, {
      result: [
        {
          label: 'Day 0',
          date: '2024-01-01T00:00:00Z',
          values: [
            { count: 4, people_url: '/r00' },
            { count: 1, people_url: '/r01' },
          ],
        },
        { label: 'Day 1', date: '2024-01-02T00:00:00Z', values: [{ count: 2, people_url: '/r10' }] },
      ],
    });
    assert.deepEqual(model.labels, ['Day 0', 'Day 1']);
    assert.deepEqual(model.series[0].values, [4, 1]);
    assert.deepEqual(model.series[1].values, [2, 0]);
    assert.deepEqual(model.series[1].urls, ['/r10', null]);
  });

  it('draws the heaviest path edges, each leading to the persons path view of that edge', () => {
    const model = chartModel(form({ kind: 'paths', dateFrom: '2024-01-01' }), 7, {
      result: [
        { source: '1_/home', target: '2_/pricing', value: 3 },
        { source: '1_/home', target: '2_/docs', value: 9 },
      ],
    });
    assert.deepEqual(model.labels, ['1_/home → 2_/docs', '1_/home → 2_/pricing']);
    const url = new URL(String(model.series[0].urls[0]), 'http://herd.test');
    assert.equal(url.pathname, '/api/projects/7/persons/path/');
    assert.equal(url.searchParams.get('path_start_key'), '1_/home');
    assert.equal(url.searchParams.get('path_end_key'), '2_/docs');
    assert.equal(url.searchParams.get('date_from'), '2024-01-01');
  });
});

describe('console: persons links', () => {
  it('follows only persons views of the current project, absolute or not', () => {
    const origin = 'http://127.0.0.1:8000';
    assert.equal(personsPath('/api/projects/7/persons/trends/?a=1', 7, origin), '/api/projects/7/persons/trends/?a=1');
    assert.equal(
      personsPath('https://herd.example/api/projects/7/persons/funnel/?x=2', 7, origin),
      '/api/projects/7/persons/funnel/?x=2',
    );
    for (const url of [
      '/api/projects/8/persons/trends/',
      '/api/projects/7/cohorts/',
      'javascript:alert(1)',
      '//evil.test/api/projects/7/x',
      '/api/projects/7/persons',
    ]) {
      assert.equal(personsPath(url, 7, origin), null, url);
    }
  });

  it("reads the persons of every analytical envelope, retention's included", () => {
    const person = {
      id: 1,
      uuid: 'u',
      name: 'a',
      distinct_ids: ['a'],
      properties: {},
      created_at: '2024-01-01T00:00:00Z',
    };
    assert.deepEqual(personsOf({ results: [{ people: [person], count: 1 }], next: '/n' }), {
      persons: [person],
      next: '/n',
    });
    assert.deepEqual(personsOf({ result: [{ person, appearances: [1, 0] }], next: null }), {
      persons: [person],
      next: null,
    });
  });
});

describe('console: property filters', () => {
  it('sends the rows joined by the chosen match, beside the cohort', () => {
    const state: FilterState = {
      match: 'OR',
      rows: [
        { key: 'plan', operator: 'exact', value: 'pro' },
        { key: 'email', operator: 'is_set', value: 'ignored' },
      ],
      cohortId: '3',
    };
    assert.deepEqual(filterGroup(state), {
      type: 'AND',
      values: [
        {
          type: 'OR',
          values: [
            { key: 'plan', operator: 'exact', value: 'pro', type: 'person' },
            { key: 'email', operator: 'is_set', type: 'person' },
          ],
        },
        { key: 'id', value: 3, type: 'cohort' },
      ],
    });
    assert.equal(filterGroup({ match: 'AND', rows: [], cohortId: '' }), null);
  });
});
