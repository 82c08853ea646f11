// Each engine of the two-engine views on its own against a reference computed in the test
// (test/helpers/engine-references.ts), over generated worlds: the ordered funnel's reach (forward
// pass, attempts) and the daily lifecycle (day masks, period rows), each engine named, not chosen.
// The path engines answer different requests (with an end point or without): see
// insights-agreement.test.ts, which checks each against its reference on the requests it answers.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import { funnelReachSql, reachEngineOf, type ReachEngine } from '../../src/analytics/funnel-reach.ts';
import { parseFunnel } from '../../src/analytics/funnel-request.ts';
import {
  lifecycleCounts,
  lifecycleEngineOf,
  type LifecycleEngine,
} from '../../src/analytics/insights/lifecycle-counts.ts';
import { parseLifecycleRequest } from '../../src/analytics/lifecycle.ts';
import type { ViewContext } from '../../src/analytics/view-context.ts';
import { bucketStarts } from '../../src/analytics/insights/buckets.ts';
import { setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { LIFECYCLE_STATUSES, referenceLifecycle, referenceReach } from '../helpers/engine-references.ts';
import { dayText, worldArbitrary, writeWorld, type World } from '../helpers/insight-arbitraries.ts';

const RUNS = Number(process.env.HERD_AGREEMENT_RUNS ?? 25);
const FIRST_DAY = Date.UTC(2024, 0, 1);
const eventId = (name: string) => (name === 'a' ? '$pageview' : name);

// The references read days in UTC.
const utcWorld = worldArbitrary.map((world): World => ({ ...world, timezone: 'UTC' }));
// Funnels need several steps of one person close together: fewer persons, more events, four days.
const funnelWorld: fc.Arbitrary<World> = fc.record({
  timezone: fc.constant('UTC'),
  persons: fc.array(fc.record({ createdDay: fc.constant(0), plan: fc.constant('free') }), {
    minLength: 1,
    maxLength: 3,
  }),
  events: fc.array(
    fc.record({
      person: fc.nat(),
      event: fc.constantFrom('a', 'b', 'c'),
      day: fc.integer({ min: 1, max: 4 }),
      minute: fc.integer({ min: 0, max: 8 }).map((slot) => slot * 15),
      color: fc.constant(null),
    }),
    { minLength: 6, maxLength: 40 },
  ),
});
const daysArbitrary = fc
  .record({ from: fc.integer({ min: 1, max: 7 }), span: fc.integer({ min: 0, max: 8 }) })
  .map(({ from, span }) => ({ fromDay: from, toDay: Math.min(9, from + span) }));

describe('the engines of the two-engine views, each against the reference', () => {
  let a: AnalyticsContext;
  before(async () => {
    a = await setupAnalytics('2024-01-12T12:00:00Z');
  });
  after(() => a.ctx.close());

  /** The world in a project of its own: a context of it, and its person ids in the world's order. */
  async function contextOf(world: World): Promise<{ context: ViewContext; personIds: number[] }> {
    const teamId = await writeWorld(a, world);
    const context: ViewContext = { db: a.ctx.deps.db, teamId, timezone: 'UTC', now: a.ctx.clock.now() };
    const { rows } = await sql<{ id: number }>`select id from persons where team_id = ${teamId} order by id`.execute(
      a.ctx.deps.db,
    );
    return { context, personIds: rows.map((row) => Number(row.id)) };
  }

  const funnelFilter = fc.record({
    steps: fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 2, maxLength: 4 }),
    // From a quarter of an hour (the worlds' events come 15 minutes apart) to the whole ten days.
    windowMinutes: fc.constantFrom(15, 30, 180, 1440, 4320, 14_400),
    days: fc.record({ fromDay: fc.integer({ min: 1, max: 2 }), toDay: fc.integer({ min: 3, max: 4 }) }),
  });

  for (const engine of ['forward-pass', 'attempts'] as ReachEngine[]) {
    it(`ordered funnels: the ${engine} engine reaches the steps and times of the reference`, async (t) => {
      let reaching = 0;
      await fc.assert(
        fc.asyncProperty(funnelWorld, funnelFilter, async (world, f) => {
          const { context, personIds } = await contextOf(world);
          const spec = await parseFunnel(
            {
              events: f.steps.map((name, order) => ({ id: eventId(name), order })),
              funnel_window_interval: String(f.windowMinutes),
              funnel_window_interval_unit: 'minute',
              date_from: dayText(f.days.fromDay),
              date_to: dayText(f.days.toDay),
            },
            context,
          );
          // The request a funnel insight would run it for (without exclusions): the forward pass's.
          assert.equal(reachEngineOf(spec), 'forward-pass');
          const { rows } = await sql<{ person_id: number; steps: number; reached: (Date | null)[] }>`
            ${funnelReachSql(context, spec, {}, engine)}`.execute(context.db);
          const answered = Object.fromEntries(
            rows.map((row) => [
              personIds.indexOf(Number(row.person_id)),
              {
                steps: Number(row.steps),
                reached: row.reached.map((time) => (time === null ? null : (time.getTime() - FIRST_DAY) / 60_000)),
              },
            ]),
          );
          const expected = Object.fromEntries(referenceReach(world, { ...f, ...f.days }));
          assert.deepEqual(answered, expected);
          reaching += rows.filter((row) => Number(row.steps) > 1).length;
        }),
        { numRuns: RUNS * 2 },
      );
      t.diagnostic(`${reaching} persons past the first step`);
      assert.ok(reaching > 0, 'no generated person went past the first step: nothing was checked');
    });
  }

  const lifecycleFilter = fc.record({ event: fc.constantFrom('a', 'b', 'c'), days: daysArbitrary });

  for (const engine of ['day-masks', 'period-rows'] as LifecycleEngine[]) {
    it(`daily lifecycle: the ${engine} engine counts each status of each day as the reference does`, async (t) => {
      let counted = 0;
      await fc.assert(
        fc.asyncProperty(utcWorld, lifecycleFilter, async (world, f) => {
          const { context } = await contextOf(world);
          const request = await parseLifecycleRequest(context, {
            events: [{ id: eventId(f.event) }],
            interval: 'day',
            date_from: dayText(f.days.fromDay),
            date_to: dayText(f.days.toDay),
          });
          const range = request.range as { from: Date; to: Date };
          // The request the insight runs by its day masks.
          assert.equal(
            lifecycleEngineOf(request, bucketStarts(range.from, new Date(range.to.getTime() - 1), 'day')),
            'day-masks',
          );
          const { counts, starts } = await lifecycleCounts(context, request, engine);
          const expected = referenceLifecycle(world, { ...f, ...f.days });
          assert.equal(starts.length, f.days.toDay - f.days.fromDay + 1);
          for (const [i, start] of starts.entries()) {
            const day = f.days.fromDay + i;
            for (const status of LIFECYCLE_STATUSES) {
              const key = `${status} ${start.toISOString().slice(0, 10)} 00:00:00`;
              assert.equal(counts.get(key) ?? 0, expected.get(`${status} ${day}`) ?? 0, `${status} on day ${day}`);
              counted += expected.get(`${status} ${day}`) ?? 0;
            }
          }
        }),
        { numRuns: RUNS * 2 },
      );
      t.diagnostic(`${counted} statuses counted`);
      assert.ok(counted > 0, 'no generated person had a status: nothing was checked');
    });
  }
});
