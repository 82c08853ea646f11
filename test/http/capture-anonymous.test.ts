// Personless events (posthog-js `person_profiles: 'identified_only'`) count for the person their
// distinct id gets later, however it gets one, in every analytical view and properties_timeline.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { eventsOf, personByDistinctId, post, type StoredPerson } from './capture-helpers.ts';

const anonymous = { $process_person_profile: false };
const pageview = (distinctId: string, timestamp: string) => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp,
  properties: { ...anonymous, $current_url: 'https://example.com/' },
});

/** How each path links the anonymous id to a person; `personId` is the id the person is found by. */
const at = '2024-01-12T10:00:00Z';
const linkers: Record<string, (anon: string, user: string) => { linker: object; personId: string }> = {
  '$identify with $anon_distinct_id': (anon, user) => ({
    linker: {
      event: '$identify',
      distinct_id: user,
      timestamp: at,
      properties: { $anon_distinct_id: anon, $set: { email: `${user}@example.com` } },
    },
    personId: user,
  }),
  $create_alias: (anon, user) => ({
    linker: { event: '$create_alias', distinct_id: user, timestamp: at, properties: { alias: anon } },
    personId: user,
  }),
  $merge_dangerously: (anon, user) => ({
    linker: { event: '$merge_dangerously', distinct_id: user, timestamp: at, properties: { alias: anon } },
    personId: user,
  }),
  'a plain $set on the same id': (anon) => ({
    linker: { event: '$set', distinct_id: anon, timestamp: at, properties: { $set: { plan: 'free' } } },
    personId: anon,
  }),
  'a plain person-processing event on the same id': (anon) => ({
    linker: { event: 'clicked', distinct_id: anon, timestamp: at },
    personId: anon,
  }),
};

describe('personless events count for the person their distinct id gets later', () => {
  let a: AnalyticsContext;
  before(async () => {
    a = await setupAnalytics();
  });
  after(() => a.ctx.close());

  async function capture(...batch: object[]) {
    const response = await post(a.ctx.app, '/batch/', { api_key: a.tenant.project.api_token, batch });
    assert.equal(response.statusCode, 200, response.body);
  }
  const person = async (distinctId: string): Promise<StoredPerson> => {
    const found = await personByDistinctId(a.ctx.deps.db, a.teamId, distinctId);
    assert.ok(found, `a person for ${distinctId}`);
    return found;
  };
  const eventsOfIds = async (...ids: string[]) =>
    (await eventsOf(a.ctx.deps.db, a.teamId)).filter((event) => ids.includes(event.distinct_id));
  const uuids = (body: { results: { people: { uuid: string }[] }[] }) => body.results[0].people.map((p) => p.uuid);

  for (const [path, link] of Object.entries(linkers)) {
    it(`through ${path}: events, trends, funnel, stickiness, retention, lifecycle and properties_timeline`, async () => {
      const tag = path.replace(/[^a-z]/gi, '').slice(0, 16);
      const anon = `anon-${tag}`;
      const user = `user-${tag}`;
      const { linker, personId } = link(anon, user);
      await capture(pageview(anon, '2024-01-10T10:00:00Z'), pageview(anon, '2024-01-10T11:00:00Z'));
      await capture(pageview(anon, '2024-01-11T10:00:00Z'));
      // Stored without a person until the id gets one.
      assert.deepEqual(
        (await eventsOfIds(anon)).map((event) => event.person_id),
        [null, null, null],
      );
      await capture(linker, { event: 'signed up', distinct_id: personId, timestamp: '2024-01-12T11:00:00Z' });

      const linked = await person(personId);
      assert.deepEqual((await person(anon)).id, linked.id);
      const events = await eventsOfIds(anon, user);
      assert.equal(events.length, 5);
      assert.deepEqual(
        events.map((event) => event.person_id),
        Array(5).fill(linked.id),
      );
      // The anonymous events keep what they were stored with: no person properties.
      assert.deepEqual(
        events.filter((event) => event.event === '$pageview').map((event) => event.person_properties),
        [{}, {}, {}],
      );
      // As the platform marks an id that was used personless before it was attached.
      const row = await a.ctx.deps.db
        .selectFrom('person_distinct_ids')
        .select('version')
        .where('team_id', '=', a.teamId)
        .where('distinct_id', '=', anon)
        .executeTakeFirstOrThrow();
      assert.equal(row.version, 1);

      const trends = await a.get('trends', {
        entity_id: '$pageview',
        entity_type: 'events',
        date_from: '2024-01-10',
        date_to: '2024-01-10',
      });
      assert.equal(trends.status, 200, trends.text);
      assert.ok(uuids(trends.body).includes(linked.uuid), 'trends of the anonymous day list the person');
      const steps = [
        { id: '$pageview', type: 'events', order: 0 },
        { id: 'signed up', type: 'events', order: 1 },
      ];
      const funnel = await a.get('funnel', {
        events: steps,
        date_from: '2024-01-01',
        date_to: '2024-01-19',
        funnel_step: '2',
      });
      assert.equal(funnel.status, 200, funnel.text);
      assert.ok(uuids(funnel.body).includes(linked.uuid), 'the anonymous $pageview converts to signed up');
      const sticky = await a.get('stickiness', {
        entity_id: '$pageview',
        entity_type: 'events',
        date_from: '2024-01-08',
        date_to: '2024-01-16',
        stickiness_days: '2',
      });
      assert.ok(uuids(sticky.body).includes(linked.uuid), 'two anonymous days make the person two days sticky');
      // Day 6 of the window (2024-01-04 … 01-14) is 01-10: the cohort of the first anonymous day.
      const retention = await a.get('retention', { date_to: '2024-01-14T06:00:00Z', selected_interval: '6' });
      assert.equal(retention.status, 200, retention.text);
      const rows = retention.body.result as { person: { uuid: string }; appearances: number[] }[];
      const own = rows.find((entry) => entry.person.uuid === linked.uuid);
      assert.ok(own, 'retention starts the person on the first anonymous day');
      assert.deepEqual(own.appearances.slice(0, 3), [1, 1, 0]);
      const returning = await a.get('lifecycle', {
        events: [{ id: '$pageview', type: 'events' }],
        date_from: '2024-01-08',
        date_to: '2024-01-14',
        target_date: '2024-01-11',
        lifecycle_type: 'returning',
      });
      assert.ok(uuids(returning.body).includes(linked.uuid), 'active the day before: returning');

      const timeline = await a.ctx.app.inject({
        method: 'GET',
        url: `/api/projects/${a.teamId}/persons/${linked.id}/properties_timeline/?date_from=2024-01-01&date_to=2024-01-19`,
        headers: a.tenant.headers,
      });
      assert.equal(timeline.statusCode, 200, timeline.body);
      const points = timeline.json().points as { relevant_event_count: number }[];
      assert.equal(
        points.reduce((sum, point) => sum + point.relevant_event_count, 0),
        5,
      );
    });
  }

  it('in the same request as the identify (posthog-js sends them together), and both ids personless before', async () => {
    await capture(
      pageview('same-anon', '2024-01-10T10:00:00Z'),
      pageview('same-user', '2024-01-10T10:30:00Z'),
      {
        event: '$identify',
        distinct_id: 'same-user',
        timestamp: '2024-01-10T11:00:00Z',
        properties: { $anon_distinct_id: 'same-anon' },
      },
      pageview('same-user', '2024-01-10T12:00:00Z'),
    );
    const linked = await person('same-user');
    assert.deepEqual(linked.distinct_ids, ['same-user', 'same-anon']);
    assert.deepEqual(
      (await eventsOfIds('same-anon', 'same-user')).map((event) => event.person_id),
      Array(4).fill(linked.id),
    );
  });

  it('onto a person that existed before (logged in elsewhere), and an SDK retry changes nothing', async () => {
    await capture({
      event: 'signed up',
      distinct_id: 'known-user',
      timestamp: '2024-01-05T10:00:00Z',
      $set: { plan: 'pro' },
    });
    const before = await person('known-user');
    const views = [pageview('new-device', '2024-01-10T10:00:00Z'), pageview('new-device', '2024-01-10T10:05:00Z')].map(
      (event, i) => ({
        ...event,
        uuid: `0190a1b2-c3d4-7e5f-8a9b-0000000000${10 + i}`,
      }),
    );
    await capture(...views);
    await capture({
      event: '$identify',
      distinct_id: 'known-user',
      timestamp: '2024-01-10T11:00:00Z',
      properties: { $anon_distinct_id: 'new-device' },
    });
    await capture(...views);
    const after = await person('known-user');
    assert.equal(after.id, before.id);
    assert.deepEqual(after.distinct_ids, ['known-user', 'new-device']);
    const events = await eventsOfIds('new-device');
    assert.equal(events.length, 2);
    assert.deepEqual(
      events.map((event) => event.person_id),
      [before.id, before.id],
    );
  });

  it("personless events after the link are the person's at once; ids never linked stay without a person", async () => {
    await capture(pageview('later-anon', '2024-01-10T10:00:00Z'), pageview('never-linked', '2024-01-10T10:00:00Z'));
    await capture({
      event: '$create_alias',
      distinct_id: 'later-user',
      timestamp: '2024-01-11T10:00:00Z',
      properties: { alias: 'later-anon' },
    });
    await capture(pageview('later-anon', '2024-01-12T10:00:00Z'));
    const linked = await person('later-user');
    assert.deepEqual(
      (await eventsOfIds('later-anon')).map((event) => event.person_id),
      [linked.id, linked.id],
    );
    assert.deepEqual(
      (await eventsOfIds('never-linked')).map((event) => event.person_id),
      [null],
    );
    assert.equal(await personByDistinctId(a.ctx.deps.db, a.teamId, 'never-linked'), null);
  });

  it('a merge of two persons carries the anonymous events linked to the one merged away', async () => {
    await capture(pageview('merge-anon', '2024-01-10T10:00:00Z'));
    await capture({
      event: '$identify',
      distinct_id: 'merge-a',
      timestamp: '2024-01-10T11:00:00Z',
      properties: { $anon_distinct_id: 'merge-anon' },
    });
    await capture({ event: 'seen', distinct_id: 'merge-b', timestamp: '2024-01-10T12:00:00Z' });
    await capture({
      event: '$merge_dangerously',
      distinct_id: 'merge-b',
      timestamp: '2024-01-10T13:00:00Z',
      properties: { alias: 'merge-a' },
    });
    const survivor = await person('merge-b');
    assert.deepEqual(survivor.distinct_ids, ['merge-b', 'merge-a', 'merge-anon']);
    assert.deepEqual(
      (await eventsOfIds('merge-anon')).map((event) => event.person_id),
      [survivor.id],
    );
  });
});
