// Every number of an insight agrees with the persons view its link leads to, as a property over
// generated worlds and filters (not only the fixed examples of the shape tests).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { funnelReachSql, reachEngineOf } from '../../src/analytics/funnel-reach.ts';
import { parseFunnel } from '../../src/analytics/funnel-request.ts';
import { pathEngineOf, type PathEngine } from '../../src/analytics/path-sessions.ts';
import type { ViewContext } from '../../src/analytics/view-context.ts';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import {
  agree,
  dayText,
  linkedCount,
  linkedRows,
  referenceEdges,
  worldArbitrary,
  writeWorld,
} from '../helpers/insight-arbitraries.ts';
import { getInsight, postInsight } from '../helpers/insights.ts';

// Generated worlds per property; HERD_AGREEMENT_RUNS=250 for a long campaign.
const RUNS = Number(process.env.HERD_AGREEMENT_RUNS ?? 25);
const pathFilter = {
  stepLimit: fc.integer({ min: 2, max: 4 }),
  pageviewsOnly: fc.boolean(),
  startPoint: fc.constantFrom(null, 'https://x.io/pricing', 'b'),
  endPoint: fc.constantFrom(null, 'https://x.io/docs', 'c'),
};
const pathParams = (f: {
  stepLimit: number;
  pageviewsOnly: boolean;
  startPoint: string | null;
  endPoint: string | null;
}) => ({
  step_limit: String(f.stepLimit),
  ...(f.pageviewsOnly ? { include_event_types: ['$pageview'] } : {}),
  ...(f.startPoint ? { start_point: f.startPoint } : {}),
  ...(f.endPoint ? { end_point: f.endPoint } : {}),
});

// The persons views stamp each answer with the time it was computed.
const withoutTimes = (body: Record<string, unknown>) => ({ ...body, last_refresh: undefined });
const entityIds = (names: string[]) => names.map((name) => (name === 'a' ? '$pageview' : name));

// Ranges of one to ten days over the ten days the worlds' events fall in.
const rangeArbitrary = fc
  .record({ from: fc.integer({ min: 0, max: 6 }), span: fc.integer({ min: 0, max: 9 }) })
  .map(({ from, span }) => ({ date_from: dayText(from), date_to: dayText(Math.min(9, from + span)) }));

describe('insights agree with their persons views', () => {
  let a: AnalyticsContext;
  before(async () => {
    // Three person slices even for these small worlds: the numbers add up across them.
    a = await setupAnalytics('2024-01-12T12:00:00Z', { analyticsSlices: 3 });
  });
  after(() => a.ctx.close());

  it('trends: each dau / weekly_active number counts the persons of its link, per point, breakdown and display', async (t) => {
    const filter = fc.record({
      entities: fc.subarray(['a', 'b', 'c'], { minLength: 1 }),
      math: fc.constantFrom('dau', 'weekly_active', 'monthly_active'),
      interval: fc.constantFrom('day', 'week'),
      range: rangeArbitrary,
      breakdown: fc.constantFrom(null, 'color', 'plan'),
      red: fc.boolean(),
      display: fc.constantFrom('ActionsLineGraph', 'ActionsTable', 'ActionsLineGraphCumulative'),
    });
    let points = 0;
    await fc.assert(
      fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
        const teamId = await writeWorld(a, world);
        const params: Record<string, unknown> = {
          events: entityIds(f.entities).map((id) => ({ id, math: f.math })),
          interval: f.interval,
          display: f.display,
          ...f.range,
          ...(f.breakdown
            ? { breakdown: f.breakdown, breakdown_type: f.breakdown === 'plan' ? 'person' : 'event' }
            : {}),
          ...(f.red ? { properties: [{ key: 'color', value: 'red', type: 'event' }] } : {}),
        };
        const res = await getInsight(a, 'trend', params, teamId);
        assert.equal(res.status, 200, res.text);
        for (const series of res.body.result) {
          const numbers: number[] = series.aggregated_value === undefined ? series.data : [series.aggregated_value];
          assert.equal(numbers.length, series.persons_urls.length);
          for (const [i, number] of numbers.entries()) {
            agree(`${series.label} point ${i}`, number, await linkedCount(a, series.persons_urls[i].url));
            points += 1;
          }
        }
      }),
      { numRuns: RUNS },
    );
    t.diagnostic(`${points} points checked`);
    assert.ok(points > RUNS);
  });

  it('stickiness and lifecycle: each bar counts the persons of its link', async (t) => {
    const filter = fc.record({
      entity: fc.constantFrom('a', 'b', 'c'),
      interval: fc.constantFrom('day', 'week'),
      range: rangeArbitrary,
    });
    // Bars that counted someone: a property whose bars were all empty (or absent) checked nothing.
    let counted = 0;
    await fc.assert(
      fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
        const teamId = await writeWorld(a, world);
        const base = { events: [{ id: entityIds([f.entity])[0] }], interval: f.interval, ...f.range };
        for (const shownAs of ['Stickiness', 'Lifecycle']) {
          const res = await postInsight(a, 'trend', { ...base, shown_as: shownAs }, teamId);
          assert.equal(res.status, 200, res.text);
          assert.equal(res.body.result.length, shownAs === 'Lifecycle' ? 4 : 1, shownAs);
          for (const series of res.body.result) {
            // Every range holds at least one interval, so every series has bars.
            assert.ok(series.data.length > 0, `${shownAs} ${series.label} has no bars`);
            assert.equal(series.persons_urls.length, series.data.length);
            for (const [i, number] of (series.data as number[]).entries()) {
              // Dormant persons are counted negative, everyone else positive.
              assert.ok(series.status === 'dormant' ? number <= 0 : number >= 0, `${series.label} ${i}: ${number}`);
              agree(
                `${shownAs} ${series.label} ${i}`,
                Math.abs(number),
                await linkedCount(a, series.persons_urls[i].url),
              );
              if (number !== 0) counted += 1;
            }
          }
        }
      }),
      { numRuns: RUNS },
    );
    t.diagnostic(`${counted} bars counted someone`);
    assert.ok(counted > RUNS, `only ${counted} bars counted someone`);
  });

  it('funnels: each step counts its converted persons and the difference its dropped ones, per breakdown and entrance period', async () => {
    const filter = fc.record({
      steps: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 2, maxLength: 3 }),
      order: fc.constantFrom('ordered', 'strict', 'unordered'),
      windowDays: fc.integer({ min: 1, max: 5 }),
      range: rangeArbitrary,
      breakdown: fc.boolean(),
      trends: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
        const teamId = await writeWorld(a, world);
        const params: Record<string, unknown> = {
          events: entityIds(f.steps).map((id, order) => ({ id, order })),
          funnel_order_type: f.order,
          funnel_window_days: String(f.windowDays),
          ...f.range,
        };
        if (f.trends) {
          const res = await getInsight(a, 'funnel', { ...params, funnel_viz_type: 'trends' }, teamId);
          assert.equal(res.status, 200, res.text);
          const [trend] = res.body.result;
          for (const [i, reached] of (trend.reached_to_step_count as number[]).entries()) {
            agree(`converted in period ${i}`, reached, await linkedCount(a, trend.converted_people_urls[i]));
            agree(
              `dropped in period ${i}`,
              trend.reached_from_step_count[i] - reached,
              await linkedCount(a, trend.dropped_people_urls[i]),
            );
          }
          return;
        }
        const res = await getInsight(
          a,
          'funnel',
          { ...params, ...(f.breakdown ? { breakdown: 'color' } : {}) },
          teamId,
        );
        assert.equal(res.status, 200, res.text);
        const lists = f.breakdown ? res.body.result : [res.body.result];
        for (const list of lists) {
          for (const [k, step] of list.entries()) {
            agree(`step ${k + 1} converted`, step.count, await linkedCount(a, step.converted_people_url));
            if (k > 0)
              agree(
                `step ${k + 1} dropped`,
                list[k - 1].count - step.count,
                await linkedCount(a, step.dropped_people_url),
              );
          }
        }
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('funnels: the two engines of an ordered funnel reach, each named, answer the same rows', async () => {
    const filter = fc.record({
      steps: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 4 }),
      windowMinutes: fc.constantFrom(30, 180, 1440, 4320),
      range: rangeArbitrary,
    });
    await fc.assert(
      fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
        const teamId = await writeWorld(a, world);
        const context: ViewContext = {
          db: a.ctx.deps.db,
          teamId,
          timezone: world.timezone,
          now: a.ctx.clock.now(),
          slices: 1,
        };
        const spec = await parseFunnel(
          {
            events: entityIds(f.steps).map((id, order) => ({ id, order })),
            funnel_window_interval: String(f.windowMinutes),
            funnel_window_interval_unit: 'minute',
            ...f.range,
          },
          context,
        );
        // The insight of this request reads the forward pass; the attempts answer any funnel.
        assert.equal(reachEngineOf(spec), 'forward-pass');
        const [forward, attempts] = await Promise.all(
          (['forward-pass', 'attempts'] as const).map(
            async (engine) =>
              (
                await sql<Record<string, unknown>>`
                  select * from (${funnelReachSql(context, spec, {}, engine)}) r order by r.person_id`.execute(
                  context.db,
                )
              ).rows,
          ),
        );
        assert.deepEqual(forward, attempts);
      }),
      { numRuns: RUNS * 2 },
    );
  });

  it('retention: each cell counts the persons of its cohort who appear at its index', async () => {
    const filter = fc.record({
      total: fc.integer({ min: 2, max: 5 }),
      dateTo: fc.integer({ min: 1, max: 9 }),
      period: fc.constantFrom('Day', 'Week', 'Hour', 'Month'),
      type: fc.constantFrom('retention_recurring', 'retention_first_time'),
      returning: fc.constantFrom(null, 'b'),
    });
    await fc.assert(
      fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
        const teamId = await writeWorld(a, world);
        const params = {
          total_intervals: String(f.total),
          date_to: dayText(f.dateTo),
          period: f.period,
          retention_type: f.type,
          ...(f.returning ? { returning_entity: { id: f.returning, type: 'events' } } : {}),
        };
        const res = await getInsight(a, 'retention', params, teamId);
        assert.equal(res.status, 200, res.text);
        for (const [k, row] of res.body.result.entries()) {
          const people = await linkedRows(a, row.people_url);
          for (const [j, cell] of row.values.entries()) {
            agree(
              `cohort ${k} period ${j}`,
              cell.count,
              people.filter((person) => person.appearances?.[j] === 1).length,
            );
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('paths: each edge counts the persons who took it', async () => {
    const filter = fc.record({ range: rangeArbitrary, ...pathFilter });
    await fc.assert(
      fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
        const teamId = await writeWorld(a, world);
        const params = { ...f.range, ...pathParams(f) };
        const res = await getInsight(a, 'path', params, teamId);
        assert.equal(res.status, 200, res.text);
        for (const edge of res.body.result)
          agree(`edge ${edge.source} → ${edge.target}`, edge.value, await linkedCount(a, edge.people_url));
      }),
      { numRuns: RUNS },
    );
  });

  // Each engine of the path nodes on the requests it answers: `forward` without an end point,
  // `sessions` with one.
  for (const engine of ['forward', 'sessions'] as PathEngine[]) {
    it(`paths: the edges of the ${engine} engine are those of the sessions the semantics describe (a reference in the test)`, async () => {
      const filter = fc.record({
        ...pathFilter,
        endPoint: engine === 'forward' ? fc.constant(null) : fc.constantFrom('https://x.io/docs', 'c'),
      });
      await fc.assert(
        fc.asyncProperty(worldArbitrary, filter, async (world, f) => {
          assert.equal(
            pathEngineOf({
              stepLimit: f.stepLimit,
              startPoint: f.startPoint ?? undefined,
              endPoint: f.endPoint ?? undefined,
            }),
            engine,
          );
          const teamId = await writeWorld(a, world);
          const params = { date_from: '2023-12-01', date_to: '2024-02-01', edge_limit: '10000', ...pathParams(f) };
          const res = await getInsight(a, 'path', params, teamId);
          assert.equal(res.status, 200, res.text);
          const answered = Object.fromEntries(
            res.body.result.map((edge: { source: string; target: string; value: number }) => [
              `${edge.source} > ${edge.target}`,
              edge.value,
            ]),
          );
          assert.deepEqual(answered, referenceEdges(world, f));
        }),
        { numRuns: RUNS * 2 },
      );
    });
  }

  it('slicing persons changes no answer: every insight and persons page is the same in one slice', async () => {
    const whole = await buildApp({ ...a.ctx.deps, config: defaultConfig({ rateLimit: false, analyticsSlices: 1 }) });
    const steps = [
      { id: '$pageview', order: 0 },
      { id: 'b', order: 1 },
      { id: 'c', order: 2 },
    ];
    const requests = (teamId: number) =>
      [
        `insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview', math: 'weekly_active' }]))}&date_from=2024-01-01&date_to=2024-01-10`,
        `insights/trend/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview' }]))}&date_from=2024-01-01&date_to=2024-01-10&shown_as=Lifecycle`,
        `insights/funnel/?events=${encodeURIComponent(JSON.stringify(steps))}&date_from=2024-01-01&date_to=2024-01-10`,
        `insights/funnel/?events=${encodeURIComponent(JSON.stringify(steps))}&date_from=2024-01-01&date_to=2024-01-10&breakdown=color`,
        `insights/funnel/?events=${encodeURIComponent(JSON.stringify(steps))}&date_from=2024-01-01&date_to=2024-01-10&funnel_viz_type=trends`,
        'insights/retention/?date_to=2024-01-09&total_intervals=5',
        'insights/path/?date_from=2024-01-01&date_to=2024-01-10',
        `persons/funnel/?events=${encodeURIComponent(JSON.stringify(steps))}&date_from=2024-01-01&date_to=2024-01-10&funnel_step=1&limit=2&offset=1`,
        `persons/lifecycle/?events=${encodeURIComponent(JSON.stringify([{ id: '$pageview' }]))}&date_from=2024-01-01&date_to=2024-01-10&target_date=2024-01-05&lifecycle_type=dormant&limit=2&offset=1`,
        'persons/retention/?date_to=2024-01-09&total_intervals=5&limit=2&offset=1',
        'persons/path/?date_from=2024-01-01&date_to=2024-01-10&limit=2&offset=1',
      ].map((path) => `/api/projects/${teamId}/${path}`);
    try {
      await fc.assert(
        fc.asyncProperty(worldArbitrary, async (world) => {
          const teamId = await writeWorld(a, world);
          for (const url of requests(teamId)) {
            const [sliced, single] = await Promise.all(
              [a.ctx.app, whole].map((app) => app.inject({ method: 'GET', url, headers: a.tenant.headers })),
            );
            assert.equal(sliced.statusCode, 200, sliced.body);
            assert.deepEqual(withoutTimes(sliced.json()), withoutTimes(single.json()), url);
          }
        }),
        { numRuns: RUNS },
      );
    } finally {
      await whole.close();
    }
  });
});
