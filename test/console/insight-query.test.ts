// The console's pure pieces: what it asks the insight endpoints, the insight in the route, and the
// filter group its builder sends (how an answer reads is test/console/insight-charts.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  emptyFilters,
  filterGroup,
  filterStateOf,
  wholeFilterStateOf,
  type FilterState,
} from '../../console/src/filters/filter-model.ts';
import {
  defaultInsight,
  filtersQuery,
  insightFilters,
  insightRequest,
  insightStateOf,
  newSeries,
  queryFilters,
  type InsightState,
} from '../../console/src/insights/insight-query.ts';

const form = (change: Partial<InsightState>): InsightState => ({
  ...defaultInsight(),
  series: [
    { ...newSeries('$pageview'), math: 'dau' },
    { ...newSeries('signed up'), math: 'dau' },
  ],
  ...change,
});

const filters = (rows: FilterState['rows'], match: FilterState['match'] = 'AND'): FilterState => ({
  ...emptyFilters(),
  match,
  rows,
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
    assert.equal(trends.query.insight, undefined, 'the kind names the endpoint, it is no parameter of it');
    assert.equal(insightRequest(7, form({ kind: 'stickiness' })).query.shown_as, 'Stickiness');
    assert.equal(insightRequest(7, form({ kind: 'lifecycle' })).query.shown_as, 'Lifecycle');
    assert.equal(insightRequest(7, form({ kind: 'funnel' })).path, '/api/projects/7/insights/funnel/');
    assert.equal(insightRequest(7, form({ kind: 'paths' })).path, '/api/projects/7/insights/path/');
  });

  it('asks retention for the first event as target and the returning one, by a capitalized period', () => {
    const retention = insightRequest(7, form({ kind: 'retention', interval: 'week', returning: 'signed up' }));
    assert.equal(retention.path, '/api/projects/7/insights/retention/');
    assert.deepEqual(JSON.parse(String(retention.query.target_entity)), { id: '$pageview', type: 'events' });
    assert.deepEqual(JSON.parse(String(retention.query.returning_entity)), { id: 'signed up', type: 'events' });
    assert.equal(retention.query.period, 'Week');
    assert.equal(retention.query.events, undefined);
    assert.equal(retention.query.date_from, undefined, 'retention has no start');
    const same = insightRequest(7, form({ kind: 'retention' }));
    assert.deepEqual(JSON.parse(String(same.query.returning_entity)), { id: '$pageview', type: 'events' });
  });

  it('sends the interval, breakdown and measure only where they apply', () => {
    const state = form({ breakdown: '$browser', breakdownType: 'person', interval: 'week' });
    const funnel = insightRequest(7, { ...state, kind: 'funnel' }).query;
    assert.equal(funnel.interval, undefined);
    assert.equal(funnel.breakdown, '$browser');
    assert.equal(funnel.breakdown_type, 'person');
    assert.deepEqual(JSON.parse(String(funnel.events))[0], { id: '$pageview', type: 'events', order: 0 });
    const lifecycle = insightRequest(7, { ...state, kind: 'lifecycle' }).query;
    assert.equal(lifecycle.breakdown, undefined);
    assert.equal(lifecycle.interval, 'week');
    assert.equal(insightRequest(7, { ...state, kind: 'paths' }).query.interval, undefined);
  });

  it("sends a series' filters with its entity and the insight's as properties", () => {
    const state = form({
      series: [
        {
          ...newSeries('$pageview'),
          filters: filters([{ type: 'event', key: '$browser', operator: 'exact', value: 'Chrome' }]),
        },
        newSeries(' '),
      ],
      filters: filters([{ type: 'person', key: 'plan', operator: 'is_set', value: '' }]),
    });
    const query = insightRequest(7, state).query;
    assert.deepEqual(JSON.parse(String(query.events)), [
      {
        id: '$pageview',
        type: 'events',
        order: 0,
        properties: [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }],
      },
    ]);
    assert.deepEqual(JSON.parse(String(query.properties)), {
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: 'plan', operator: 'is_set', type: 'person' }] }],
    });
  });
});

describe('console: the insight in the route', () => {
  const roundTrip = (state: InsightState) =>
    insightStateOf(queryFilters(new URLSearchParams(filtersQuery(insightFilters(state)))));

  it('reads back every kind it writes, as the route and a saved insight carry it', () => {
    const state = form({
      dateFrom: '2024-01-01',
      dateTo: '2024-01-31',
      breakdown: 'plan',
      breakdownType: 'person',
      series: [
        {
          event: '$pageview',
          math: 'weekly_active',
          filters: filters([{ type: 'event', key: '$browser', operator: 'icontains', value: 'chro' }]),
        },
        { ...newSeries('signed up'), math: 'dau' },
      ],
      filters: filters(
        [
          { type: 'person', key: 'plan', operator: 'exact', value: 'pro' },
          { type: 'event', key: '$current_url', operator: 'regex', value: '^/a' },
        ],
        'OR',
      ),
    });
    assert.deepEqual(roundTrip(state), state);
    for (const kind of ['funnel', 'lifecycle', 'stickiness', 'paths'] as const) {
      const other = { ...form({ kind }), series: form({ kind }).series.map((item) => ({ ...item, math: 'total' })) };
      const back = roundTrip(other);
      assert.equal(back.kind, kind);
      if (kind !== 'paths') assert.deepEqual(back.series, other.series);
    }
    const retention = roundTrip(
      form({ kind: 'retention', interval: 'month', returning: 'signed up', dateTo: '2024-02-01' }),
    );
    assert.deepEqual(
      [retention.kind, retention.series[0].event, retention.returning, retention.interval, retention.dateTo],
      ['retention', '$pageview', 'signed up', 'month', '2024-02-01'],
    );
  });

  it('names the kinds as the platform does and reads JSON values only where they are JSON', () => {
    const query = filtersQuery(insightFilters(form({ kind: 'funnel' })));
    assert.equal(query.insight, 'FUNNELS');
    assert.equal(typeof query.events, 'string');
    const read = queryFilters(new URLSearchParams({ events: '[{"id":"a"}]', date_from: '-7d', breakdown: '[oops' }));
    assert.deepEqual(read, { events: [{ id: 'a' }], date_from: '-7d', breakdown: '[oops' });
  });

  it('opens what it cannot fully show with defaults rather than failing', () => {
    const state = insightStateOf({
      insight: 'nonsense',
      events: 'not a list',
      properties: { type: 'AND', values: [7] },
    });
    assert.equal(state.kind, 'trends');
    assert.deepEqual(state.series, defaultInsight().series);
    assert.deepEqual(state.filters.rows, []);
    assert.equal(insightStateOf({ insight: 'trends', shown_as: 'Lifecycle' }).kind, 'trends');
    assert.equal(insightStateOf({ shown_as: 'Lifecycle' }).kind, 'lifecycle');
  });
});

describe('console: property filters', () => {
  it('sends the rows joined by the chosen match, beside the cohort', () => {
    const state: FilterState = {
      match: 'OR',
      rows: [
        { type: 'person', key: 'plan', operator: 'exact', value: 'pro' },
        { type: 'person', key: 'email', operator: 'is_set', value: 'ignored' },
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

  it('reads back the group it sends, the cohort included, and a plain list as all required', () => {
    const state: FilterState = {
      match: 'OR',
      rows: [
        { type: 'person', key: 'plan', operator: 'exact', value: 'pro' },
        { type: 'event', key: '$browser', operator: 'is_not', value: 'Safari' },
      ],
      cohortId: '3',
    };
    assert.deepEqual(filterStateOf(filterGroup(state)), state);
    assert.deepEqual(filterStateOf([{ key: 'age', operator: 'gt', value: 40 }]).rows, [
      { type: 'person', key: 'age', operator: 'gt', value: '40' },
    ]);
    assert.deepEqual(filterStateOf('junk'), emptyFilters());
  });

  it('reads a cohort definition for editing only when the builder can show every part of it', () => {
    const state: FilterState = {
      match: 'AND',
      rows: [{ type: 'person', key: 'plan', operator: 'icontains', value: 'pro' }],
      cohortId: '7',
    };
    assert.deepEqual(wholeFilterStateOf(filterGroup(state)), state);
    const plan = { key: 'plan', operator: 'exact', value: 'pro', type: 'person' };
    const refused = {
      'a group inside the group': { type: 'AND', values: [{ type: 'AND', values: [{ type: 'OR', values: [plan] }] }] },
      'two groups': {
        type: 'AND',
        values: [
          { type: 'AND', values: [plan] },
          { type: 'OR', values: [plan] },
        ],
      },
      'a row beside a group': { type: 'AND', values: [plan, { type: 'OR', values: [plan, plan] }] },
      'parts joined by OR': {
        type: 'OR',
        values: [
          { type: 'AND', values: [plan] },
          { type: 'cohort', value: 2 },
        ],
      },
      'an unknown operator': { type: 'AND', values: [{ type: 'AND', values: [{ ...plan, operator: 'soundex' }] }] },
      'two cohorts': {
        type: 'AND',
        values: [
          { type: 'cohort', value: 2 },
          { type: 'cohort', value: 3 },
        ],
      },
      'a leaf without a key': { type: 'AND', values: [{ type: 'AND', values: [{ value: 'pro' }] }] },
      'no group': undefined,
    };
    for (const [what, filters] of Object.entries(refused)) assert.equal(wholeFilterStateOf(filters), null, what);
    // The lenient reader still shows what it can of the same inputs.
    assert.deepEqual(filterStateOf(refused['a row beside a group']).rows.length, 3);
  });
});
