import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  makeEvent,
  setupAnalytics,
  sortedUuids,
  uuidsOf,
  type AnalyticsContext,
} from '../helpers/analytics-factories.ts';
import { makePerson, type TestPerson } from '../helpers/factories.ts';

const range = { date_from: '2024-01-01', date_to: '2024-01-19' };

describe('persons/path', () => {
  let a: AnalyticsContext;
  const p: Record<string, TestPerson> = {};
  before(async () => {
    a = await setupAnalytics();
    const db = a.ctx.deps.db;
    const view = (url: string) => ['$pageview', { $current_url: url }] as const;
    const journeys: Record<string, [string, string, Record<string, string>][]> = {
      // Session 1: /home (trailing slash stripped), /pricing twice (collapsed), signup; session 2 two hours later: /home.
      a: [
        [...view('/home/'), '2024-01-02T10:00:00Z'],
        [...view('/pricing'), '2024-01-02T10:05:00Z'],
        [...view('/pricing'), '2024-01-02T10:06:00Z'],
        ['signup', {}, '2024-01-02T10:10:00Z'],
        [...view('/home'), '2024-01-02T12:10:00Z'],
      ].map(([event, props, ts]) => [event as string, ts as string, props as Record<string, string>]),
      b: [
        [...view('/home'), '2024-01-03T10:00:00Z'],
        [...view('/docs'), '2024-01-03T10:05:00Z'],
      ].map(([event, props, ts]) => [event as string, ts as string, props as Record<string, string>]),
      // A screen, then "/" (kept as is), then /pricing.
      c: [
        ['$screen', { $screen_name: 'Main' }, '2024-01-04T10:00:00Z'],
        [...view('/'), '2024-01-04T10:01:00Z'],
        [...view('/pricing'), '2024-01-04T10:02:00Z'],
      ].map(([event, props, ts]) => [event as string, ts as string, props as Record<string, string>]),
      // A 40-minute gap splits the session.
      d: [
        [...view('/home'), '2024-01-05T10:00:00Z'],
        [...view('/pricing'), '2024-01-05T10:40:00Z'],
      ].map(([event, props, ts]) => [event as string, ts as string, props as Record<string, string>]),
    };
    for (const [name, events] of Object.entries(journeys)) {
      p[name] = await makePerson(db, a.teamId, { distinctIds: [name] });
      for (const [event, timestamp, properties] of events)
        await makeEvent(db, a.teamId, p[name], event, timestamp, properties);
    }
  });
  after(() => a.ctx.close());

  const names = (...list: string[]) => sortedUuids(...list.map((name) => p[name]));
  const path = async (params: Record<string, unknown>) => {
    const res = await a.get('path', { ...range, ...params });
    assert.equal(res.status, 200, res.text);
    return uuidsOf(res.body);
  };

  it('lists everyone with a path when no key is given', async () => {
    assert.deepEqual(await path({}), names('a', 'b', 'c', 'd'));
  });

  it('matches a direct edge for start and end keys', async () => {
    assert.deepEqual(await path({ path_start_key: '1_/home', path_end_key: '2_/pricing' }), names('a'));
    assert.deepEqual(await path({ path_end_key: '2_/pricing' }), names('a'));
    assert.deepEqual(await path({ path_end_key: '3_/pricing' }), names('c'));
    assert.deepEqual(await path({ path_end_key: '2_/' }), names('c'));
  });

  it('start key alone means continued past the start node', async () => {
    assert.deepEqual(await path({ path_start_key: '1_/home' }), names('a', 'b'));
  });

  it('matches the last node of a session for the dropoff key', async () => {
    assert.deepEqual(await path({ path_dropoff_key: '1_/home' }), names('a', 'd'));
    assert.deepEqual(await path({ path_dropoff_key: '3_signup' }), names('a'));
    assert.deepEqual(await path({ path_dropoff_key: '3_signup', path_start_key: '1_/nowhere' }), names('a'));
  });

  it('cuts sessions at start_point and end_point', async () => {
    assert.deepEqual(await path({ start_point: '/pricing', path_end_key: '2_signup' }), names('a'));
    assert.deepEqual(await path({ start_point: '/pricing', path_dropoff_key: '1_/pricing' }), names('c', 'd'));
    // end_point keeps the last step_limit items before it; sessions without it are dropped.
    assert.deepEqual(
      await path({ end_point: '/pricing', step_limit: '2', path_end_key: '2_/pricing' }),
      names('a', 'c'),
    );
    assert.deepEqual(await path({ end_point: '/pricing' }), names('a', 'c', 'd'));
  });

  it('keeps step_limit items', async () => {
    assert.deepEqual(await path({ step_limit: '2', path_dropoff_key: '2_/pricing' }), names('a'));
    assert.deepEqual(await path({ step_limit: '2', path_dropoff_key: '2_/' }), names('c'));
  });

  it('filters event types, excludes items and groups them', async () => {
    assert.deepEqual(await path({ include_event_types: ['$pageview'], path_end_key: '2_/pricing' }), names('a', 'c'));
    assert.deepEqual(await path({ include_event_types: ['custom_event'], path_dropoff_key: '1_signup' }), names('a'));
    assert.deepEqual(await path({ exclude_events: ['/pricing'], path_end_key: '2_signup' }), names('a'));
    assert.deepEqual(await path({ path_groupings: ['/pri*'], path_end_key: '2_/pri*' }), names('a'));
  });

  it("limits paths to a funnel step's persons and to the events after, before or between its steps", async () => {
    const funnelFilter = (funnelStep: number) => ({
      events: [
        { id: '$pageview', order: 0 },
        { id: 'signup', order: 1 },
      ],
      funnel_step: funnelStep,
      ...range,
    });
    // a reached signup at 10:10: after it, its first session holds only signup, before it the pages up to signup.
    assert.deepEqual(
      await path({
        funnel_paths: 'funnel_path_after_step',
        funnel_filter: funnelFilter(2),
        path_dropoff_key: '1_signup',
      }),
      names('a'),
    );
    assert.deepEqual(
      await path({
        funnel_paths: 'funnel_path_before_step',
        funnel_filter: funnelFilter(2),
        path_dropoff_key: '1_/home',
      }),
      [],
    );
    assert.deepEqual(
      await path({
        funnel_paths: 'funnel_path_before_step',
        funnel_filter: funnelFilter(2),
        path_dropoff_key: '3_signup',
      }),
      names('a'),
    );
    assert.deepEqual(
      await path({
        funnel_paths: 'funnel_path_between_steps',
        funnel_filter: funnelFilter(2),
        path_start_key: '2_/pricing',
        path_end_key: '3_signup',
      }),
      names('a'),
    );
    // Drop-offs before signup: from their first pageview on, so c's screen before it is gone.
    assert.deepEqual(
      await path({ funnel_paths: 'funnel_path_after_step', funnel_filter: funnelFilter(-2), path_start_key: '1_/' }),
      names('c'),
    );
    assert.deepEqual(
      await path({ funnel_paths: 'funnel_path_after_step', funnel_filter: funnelFilter(-2) }),
      names('b', 'c', 'd'),
    );
    const post = await a.post('path', {
      ...range,
      funnel_paths: 'funnel_path_after_step',
      funnel_filter: funnelFilter(2),
    });
    assert.deepEqual(uuidsOf(post.body), names('a'));
    for (const [params, attr] of [
      [{ funnel_paths: 'funnel_path_after_step' }, 'funnel_filter'],
      [{ funnel_paths: 'sideways', funnel_filter: funnelFilter(2) }, 'funnel_paths'],
      [
        { funnel_paths: 'funnel_path_after_step', funnel_filter: { ...funnelFilter(2), funnel_step: undefined } },
        'funnel_filter',
      ],
      [{ funnel_paths: 'funnel_path_between_steps', funnel_filter: funnelFilter(1) }, 'funnel_filter'],
      [
        {
          funnel_paths: 'funnel_path_after_step',
          funnel_filter: { ...funnelFilter(2), funnel_order_type: 'unordered' },
        },
        'funnel_filter',
      ],
      [{ funnel_paths: 'funnel_path_after_step', funnel_filter: '[1]' }, 'funnel_filter'],
    ] as const) {
      const res = await a.get('path', { ...range, ...params });
      assert.equal(res.status, 400, `${JSON.stringify(params)} → ${res.text}`);
      assert.equal(res.body.attr, attr);
    }
  });

  it('reads POST bodies', async () => {
    const res = await a.post('path', { ...range, path_start_key: '1_/home', path_end_key: '2_/docs' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), names('b'));
  });

  it('keys a page longer than 400 characters by its first 400, and stores it', async () => {
    // Four bytes a character: 12 kB, over what one index entry can hold whole.
    const long = '/' + '😀'.repeat(3000);
    const person = await makePerson(a.ctx.deps.db, a.teamId, { distinctIds: ['long-page'] });
    await makeEvent(a.ctx.deps.db, a.teamId, person, '$pageview', '2024-01-25T10:00:00Z', { $current_url: long });
    const kept = Array.from(long).slice(0, 400).join('');
    const res = await a.get('path', { date_from: '2024-01-25', date_to: '2024-01-25', path_end_key: `1_${kept}` });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), [person.uuid]);
  });

  it('answers 400 for bad parameters', async () => {
    for (const [params, attr] of [
      [{ step_limit: '0' }, 'step_limit'],
      [{ include_event_types: ['$weird'] }, 'include_event_types'],
      [{ exclude_events: 'nope' }, 'exclude_events'],
      [{ date_to: '2024-13-01' }, 'date_to'],
    ] as const) {
      const res = await a.get('path', { ...range, ...params });
      assert.equal(res.status, 400, `${JSON.stringify(params)} → ${res.text}`);
      assert.equal(res.body.attr, attr);
    }
  });
});
