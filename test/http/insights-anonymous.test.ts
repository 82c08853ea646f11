// Personless events in the insights: counted as events at once, counted for a person (and listed
// by the persons links) once their distinct id gets one; an id that never gets one holds a
// placeholder row in person_distinct_ids and is no person anywhere.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { getInsight, linkedUuids } from '../helpers/insights.ts';
import { personByDistinctId, post } from './capture-helpers.ts';

const pageview = (distinctId: string, timestamp: string) => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp,
  properties: { $process_person_profile: false, $current_url: 'https://example.com/' },
});
const range = { date_from: '2024-01-10', date_to: '2024-01-12', interval: 'day' };
const pageviews = (math: string) => ({ events: [{ id: '$pageview', math }], ...range });
const steps = {
  events: [
    { id: '$pageview', order: 0 },
    { id: 'signed up', order: 1 },
  ],
  ...range,
};

describe('insights: personless events', () => {
  let a: AnalyticsContext;
  before(async () => {
    a = await setupAnalytics();
  });
  after(() => a.ctx.close());

  const capture = async (...batch: object[]) => {
    const response = await post(a.ctx.app, '/batch/', { api_key: a.tenant.project.api_token, batch });
    assert.equal(response.statusCode, 200, response.body);
  };
  const trend = async (math: string) => {
    const res = await getInsight(a, 'trend', pageviews(math));
    assert.equal(res.status, 200, res.text);
    return res.body.result[0] as { data: number[]; persons_urls: { url: string }[] };
  };

  it('count as events at once and for the person their id gets later, who the links then list', async () => {
    await capture(
      pageview('anon', '2024-01-10T10:00:00Z'),
      pageview('anon', '2024-01-10T11:00:00Z'),
      pageview('stranger', '2024-01-10T12:00:00Z'),
    );
    await capture(pageview('anon', '2024-01-11T10:00:00Z'));
    // Both ids hold placeholders: every event counts, no person does.
    const placeholders = await a.ctx.deps.db
      .selectFrom('person_distinct_ids')
      .select('distinct_id')
      .where('team_id', '=', a.teamId)
      .where('person_id', 'is', null)
      .execute();
    assert.deepEqual(placeholders.map((row) => row.distinct_id).sort(), ['anon', 'stranger']);
    assert.deepEqual((await trend('total')).data, [3, 1, 0]);
    const unlinked = await trend('dau');
    assert.deepEqual(unlinked.data, [0, 0, 0]);
    assert.deepEqual(await linkedUuids(a, unlinked.persons_urls[0].url), []);
    const beforeLink = await getInsight(a, 'funnel', steps);
    assert.deepEqual(
      beforeLink.body.result.map((step: { count: number }) => step.count),
      [0, 0],
    );

    await capture(
      {
        event: '$identify',
        distinct_id: 'user',
        timestamp: '2024-01-12T09:00:00Z',
        properties: { $anon_distinct_id: 'anon' },
      },
      {
        event: 'signed up',
        distinct_id: 'user',
        timestamp: '2024-01-12T10:00:00Z',
      },
    );
    const person = await personByDistinctId(a.ctx.deps.db, a.teamId, 'user');
    assert.ok(person);

    assert.deepEqual((await trend('total')).data, [3, 1, 0]);
    const linked = await trend('dau');
    assert.deepEqual(linked.data, [1, 1, 0]);
    assert.deepEqual(await linkedUuids(a, linked.persons_urls[0].url), [person.uuid]);
    assert.deepEqual(await linkedUuids(a, linked.persons_urls[1].url), [person.uuid]);
    // The stranger's id is still a placeholder: never a person, in no count of persons.
    assert.equal(await personByDistinctId(a.ctx.deps.db, a.teamId, 'stranger'), null);

    const funnel = await getInsight(a, 'funnel', steps);
    assert.equal(funnel.status, 200, funnel.text);
    const [first, second] = funnel.body.result as { count: number; converted_people_url: string }[];
    assert.deepEqual([first.count, second.count], [1, 1]);
    assert.deepEqual(await linkedUuids(a, second.converted_people_url), [person.uuid]);

    const lifecycle = await getInsight(a, 'trend', { ...pageviews('total'), shown_as: 'Lifecycle' });
    const returning = (lifecycle.body.result as { status: string; data: number[] }[]).find(
      (series) => series.status === 'returning',
    );
    assert.deepEqual(returning?.data, [0, 1, 0]);
  });
});
