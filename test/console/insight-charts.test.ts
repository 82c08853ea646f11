// The console's insight readings, pure: a funnel's converted and dropped-off per step with its
// conversions and median times, retention's cohort table, the paths flow's layout and labels,
// lifecycle's stacked segments and legend, and a point's persons with those deleted since.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duration, funnelGroups, percent } from '../../console/src/insights/charts/funnel-model.ts';
import { flowLayout, shortLabel, splitKey } from '../../console/src/insights/charts/paths-layout.ts';
import { deletedSince, personsPage, personsPath } from '../../console/src/insights/charts/points.ts';
import { cohortLabel, retentionTable } from '../../console/src/insights/charts/retention-model.ts';
import { stackSegments } from '../../console/src/insights/charts/stack.ts';
import { trendModel } from '../../console/src/insights/charts/trend-model.ts';

const step = (name: string, order: number, count: number, median: number | null = null) => ({
  name,
  custom_name: null,
  order,
  count,
  median_conversion_time: median,
  converted_people_url: `/api/projects/7/persons/funnel/?funnel_step=${order + 1}`,
  dropped_people_url: order === 0 ? null : `/api/projects/7/persons/funnel/?funnel_step=-${order + 1}`,
});

describe('console charts: funnel', () => {
  it('gives each step its converted and dropped-off persons, adding up to the step before', () => {
    const [group] = funnelGroups([
      step('$pageview', 0, 30),
      step('signed up', 1, 18, 300),
      step('project created', 2, 12, 1500),
    ]);
    assert.equal(group.breakdown, null);
    assert.equal(group.entered, 30);
    assert.deepEqual(
      group.steps.map((s) => [s.label, s.converted, s.dropped]),
      [
        ['1. $pageview', 30, 0],
        ['2. signed up', 18, 12],
        ['3. project created', 12, 6],
      ],
    );
    for (const [index, s] of group.steps.entries())
      if (index > 0) assert.equal(s.converted + s.dropped, group.steps[index - 1].converted);
    assert.deepEqual(
      group.steps.map((s) => [percent(s.fromFirst), percent(s.fromPrevious)]),
      [
        ['100%', '100%'],
        ['60%', '60%'],
        ['40%', '67%'],
      ],
    );
    assert.deepEqual(
      group.steps.map((s) => s.medianSeconds),
      [null, 300, 1500],
    );
    assert.equal(group.steps[2].droppedUrl, '/api/projects/7/persons/funnel/?funnel_step=-3');
  });

  it('reads a broken-down funnel as one funnel per value, and an empty one as none', () => {
    const groups = funnelGroups([
      [
        { ...step('a', 0, 4), breakdown_value: 'Chrome' },
        { ...step('b', 1, 1), breakdown_value: 'Chrome' },
      ],
      [
        { ...step('a', 0, 2), breakdown_value: ['x'] },
        { ...step('b', 1, 2), breakdown_value: ['x'] },
      ],
    ]);
    assert.deepEqual(
      groups.map((group) => [group.breakdown, group.steps[1].dropped, percent(group.steps[1].fromFirst)]),
      [
        ['Chrome', 3, '25%'],
        ['["x"]', 0, '100%'],
      ],
    );
    assert.deepEqual(funnelGroups([]), []);
    assert.deepEqual(funnelGroups(null), []);
    // Nobody entered: no division by zero.
    assert.equal(percent(funnelGroups([step('a', 0, 0), step('b', 1, 0)])[0].steps[1].fromFirst), '0%');
  });

  it('says shares as whole percents and durations in their two largest units', () => {
    assert.deepEqual([0, 0.004, 0.5, 0.666, 1].map(percent), ['0%', '<1%', '50%', '67%', '100%']);
    assert.deepEqual([0, 45, 200, 3600, 7500, 86_400 + 4 * 3600 + 59].map(duration), [
      '0s',
      '45s',
      '3m 20s',
      '1h',
      '2h 5m',
      '1d 4h',
    ]);
  });
});

describe('console charts: retention', () => {
  const row = (date: string, counts: number[]) => ({
    date,
    label: `Day ${counts.length}`,
    values: counts.map((count) => ({ count, people_url: `/api/projects/7/persons/retention/?d=${date}` })),
    people_url: `/api/projects/7/persons/retention/?d=${date}`,
  });

  it('makes a row per cohort date with its shares, shaded by value, and no cell for the future', () => {
    const table = retentionTable(
      [row('2024-01-08T00:00:00Z', [10, 5, 0]), row('2024-01-09T00:00:00Z', [4, 1]), row('2024-01-10T00:00:00Z', [0])],
      'Day',
    );
    assert.equal(table.period, 'Day');
    assert.equal(table.periods, 3);
    assert.deepEqual(
      table.cohorts.map((cohort) => [
        cohort.label,
        cohort.size,
        cohort.cells.map((cell) => [percent(cell.fraction), cell.shade]),
      ]),
      [
        [
          '8 Jan 2024',
          10,
          [
            ['100%', 5],
            ['50%', 3],
            ['0%', 0],
          ],
        ],
        [
          '9 Jan 2024',
          4,
          [
            ['100%', 5],
            ['25%', 1],
          ],
        ],
        ['10 Jan 2024', 0, [['0%', 0]]],
      ],
    );
    assert.equal(table.cohorts[1].url, '/api/projects/7/persons/retention/?d=2024-01-09T00:00:00Z');
    // Without the request's period, the answer's labels name it.
    assert.equal(retentionTable([{ ...row('2024-01-08T00:00:00Z', [1]), label: 'Week 0' }]).period, 'Week');
  });

  it("dates a cohort by the project's local day, whatever its offset under 12 hours", () => {
    // Midnight of 8 January in Berlin, in New York and in UTC.
    for (const instant of ['2024-01-07T23:00:00Z', '2024-01-08T05:00:00Z', '2024-01-08T00:00:00Z'])
      assert.equal(cohortLabel(instant, 'Day'), '8 Jan 2024', instant);
    assert.equal(cohortLabel('2024-03-01T00:00:00Z', 'Month'), '1 Mar 2024');
    assert.equal(cohortLabel('2024-01-08T14:00:00Z', 'Hour'), '8 Jan 2024 14:00 UTC');
  });
});

describe('console charts: paths', () => {
  const long = 'https://app.example.com/onboarding/create-your-first-project?step=welcome&ref=pricing-page';
  const edges = [
    {
      source: '1_https://app.example.com/',
      target: '2_https://app.example.com/pricing',
      value: 20,
      people_url: '/p/1',
    },
    { source: '1_https://app.example.com/', target: '2_https://app.example.com/docs', value: 10, people_url: '/p/2' },
    {
      source: '2_https://app.example.com/docs',
      target: '3_https://app.example.com/pricing',
      value: 10,
      people_url: '/p/3',
    },
    { source: '2_https://app.example.com/pricing', target: `3_${long}`, value: 12, people_url: '/p/4' },
    { source: '2_https://app.example.com/pricing', target: '3_signed up', value: 1, people_url: '/p/5' },
  ];

  it('names nodes without their step prefix, a long URL by its path cut in the middle', () => {
    assert.deepEqual(splitKey('12_$pageview'), { step: 12, name: '$pageview' });
    assert.deepEqual(splitKey('no prefix'), { step: 1, name: 'no prefix' });
    assert.equal(shortLabel('https://app.example.com/pricing'), '/pricing');
    assert.equal(shortLabel('https://app.example.com'), '/');
    assert.equal(shortLabel('signed up'), 'signed up');
    const cut = shortLabel(long);
    assert.equal(Array.from(cut).length, 30);
    assert.ok(cut.startsWith('/onboarding/') && cut.endsWith('pricing-page') && cut.includes('…'), cut);
    // Cut by characters, not UTF-16 units: no half emoji.
    assert.equal(shortLabel('😀'.repeat(40), 9), '😀😀😀😀…😀😀😀😀');
  });

  it('lays out a column per step, nodes apart and as tall as their persons, ribbons as wide as theirs', () => {
    const layout = flowLayout(edges);
    assert.deepEqual(
      layout.nodes.map((node) => [node.step, node.label, node.persons]),
      [
        [1, '/', 30],
        [2, '/pricing', 20],
        [2, '/docs', 10],
        [3, '/onboarding/cre…f=pricing-page', 12],
        [3, '/pricing', 10],
        [3, 'signed up', 1],
      ],
    );
    for (const step of [1, 2, 3]) {
      const column = layout.nodes.filter((node) => node.step === step);
      assert.ok(column.every((node) => node.x === column[0].x));
      for (const [i, node] of column.entries()) {
        assert.ok(node.height >= 20, 'tall enough for its label');
        if (i > 0) assert.ok(node.y >= column[i - 1].y + column[i - 1].height, 'below the one before');
        assert.ok(node.y + node.height <= layout.height);
      }
    }
    const first = layout.nodes[0];
    const ratio = first.height / first.persons;
    const link = layout.links.find((one) => one.persons === 12);
    assert.ok(link);
    assert.ok(Math.abs(link.width - 12 * ratio) < 1e-9);
    assert.equal(link.url, '/p/4');
    assert.match(link.d, /^M[\d.]+ [\d.]+C/);
    // The thinnest link is still visible.
    assert.ok((layout.links.find((one) => one.persons === 1)?.width ?? 0) >= 1.5);
    assert.deepEqual(flowLayout([]).links, []);
    assert.deepEqual(flowLayout([{ source: 5 }]).nodes, []);
  });
});

describe('console charts: trends and lifecycle', () => {
  const lifecycle = ['new', 'returning', 'resurrecting', 'dormant'].map((status, index) => ({
    action: { name: '$pageview', custom_name: null, math: 'total' },
    label: `$pageview - ${status}`,
    status,
    data: status === 'dormant' ? [0, -2] : [index + 1, index],
    labels: ['8-Jan-2024', '9-Jan-2024'],
    persons_urls: [{ url: '/a' }, { url: '/b' }],
  }));

  it('draws a trend series per result with the persons link of every point', () => {
    const model = trendModel('trends', [
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
    ]);
    assert.deepEqual(model.labels, ['1-Jan-2024', '2-Jan-2024']);
    assert.deepEqual(
      model.series.map((series) => series.label),
      ['$pageview · Chrome', '$pageview · Safari'],
    );
    assert.deepEqual(model.series[1].values, [1, 2]);
    assert.deepEqual(model.series[1].urls, ['/c', '/d']);
    assert.equal(model.style, 'line');
  });

  it('names lifecycle series by status alone, the event once, stacked', () => {
    const model = trendModel('lifecycle', lifecycle);
    assert.deepEqual(
      model.series.map((series) => series.label),
      ['New', 'Returning', 'Resurrecting', 'Dormant'],
    );
    assert.equal(model.subject, '$pageview');
    assert.equal(model.style, 'stacked');
    assert.ok(model.series.every((series) => series.countsPersons));
  });

  it('counts persons only for the measures of persons', () => {
    const series = (math: string) => ({
      ...lifecycle[0],
      status: undefined,
      label: '$pageview',
      action: { name: '$pageview', math },
    });
    assert.equal(trendModel('trends', [series('total')]).series[0].countsPersons, false);
    assert.equal(trendModel('trends', [series('dau')]).series[0].countsPersons, true);
    assert.equal(
      trendModel('trends', [{ ...series('dau'), breakdown_value: 'Chrome' }]).series[0].label,
      '$pageview · Chrome',
    );
    assert.equal(trendModel('trends', [series('dau')]).subject, null);
  });

  it('names a broken-down series by its value once, as the endpoint labels it', () => {
    const model = trendModel('trends', [
      { label: '$pageview - Chrome', data: [1], labels: ['1-Jan-2024'], breakdown_value: 'Chrome' },
      { label: '$pageview - Chrome - beta', data: [1], labels: ['1-Jan-2024'], breakdown_value: 'beta' },
    ]);
    assert.deepEqual(
      model.series.map((series) => series.label),
      ['$pageview · Chrome', '$pageview - Chrome · beta'],
    );
  });

  it('stacks positive values up and negative ones down, each its own segment', () => {
    const segments = stackSegments([
      [3, 0],
      [2, 4],
      [-1, -2],
      [1, -3],
    ]);
    assert.deepEqual(
      segments.map((line) => line.map(({ low, high }) => [low, high])),
      [
        [
          [0, 3],
          [0, 0],
        ],
        [
          [3, 5],
          [0, 4],
        ],
        [
          [-1, 0],
          [-2, 0],
        ],
        [
          [5, 6],
          [-5, -2],
        ],
      ],
    );
    assert.deepEqual(
      segments[3].map((segment) => segment.outer),
      [6, -5],
    );
  });
});

describe('console charts: the persons of a point', () => {
  const person = (id: number) => ({
    id,
    uuid: `u${id}`,
    name: `p${id}`,
    distinct_ids: [`p${id}`],
    properties: {},
    created_at: '2024-01-01T00:00:00Z',
  });

  it('reads each envelope with the persons deleted since, and a retention cell by its appearances', () => {
    assert.deepEqual(personsPage({ results: [{ people: [person(1)], count: 1 }], next: '/n', missing_persons: 2 }), {
      persons: [person(1)],
      next: '/n',
      missing: 2,
      read: 1,
    });
    const cohort = {
      result: [
        { person: person(1), appearances: [1, 1] },
        { person: person(2), appearances: [1, 0] },
      ],
      next: null,
      missing_persons: 1,
    };
    assert.deepEqual(personsPage(cohort, 1).persons, [person(1)]);
    assert.deepEqual(personsPage(cohort, 0).persons, [person(1), person(2)]);
    assert.deepEqual(personsPage(cohort).persons, [person(1), person(2)]);
    assert.deepEqual(personsPage(null), { persons: [], next: null, missing: 0, read: 0 });
  });

  it('tells how many of a count were deleted since: the envelopes’ own, or a retention cell’s shortfall once complete', () => {
    const point = { title: 't', url: '/u', persons: 5 };
    assert.equal(deletedSince(point, 3, 2, true), 2);
    assert.equal(deletedSince(point, 3, 2, false), 2);
    const cell = { ...point, appearance: 2 };
    assert.equal(deletedSince(cell, 4, 9, true), 1);
    assert.equal(deletedSince(cell, 4, 9, false), 0, 'not before every page is read');
    assert.equal(
      deletedSince({ ...cell, appearance: 0 }, 4, 1, false),
      1,
      "period 0 is the cohort: the envelope's own",
    );
  });

  it('follows only persons views of this project, from any origin the API wrote', () => {
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
    ])
      assert.equal(personsPath(url, 7, origin), null, url);
  });
});
