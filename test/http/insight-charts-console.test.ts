// The console's insight readings against the real endpoints: the funnel's converted and dropped-off
// per step and the persons behind them (a deleted one told, not listed), a broken-down funnel per
// value, retention cohorts dated in the project's timezone with each cell's persons, the paths flow
// without step prefixes and its ribbons' persons, lifecycle's statuses named once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { funnelGroups } from '../../console/src/insights/charts/funnel-model.ts';
import { flowLayout } from '../../console/src/insights/charts/paths-layout.ts';
import { deletedSince, personsPage, personsPath, type InsightPoint } from '../../console/src/insights/charts/points.ts';
import { retentionTable } from '../../console/src/insights/charts/retention-model.ts';
import { trendModel } from '../../console/src/insights/charts/trend-model.ts';
import { deletePerson, setTimezone, setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { followLink, getInsight, makeJourneys } from '../helpers/insights.ts';
import type { TestPerson } from '../helpers/factories.ts';

const view = (url: string, browser = 'Chrome') => ({ $current_url: url, $browser: browser });
const steps = (...ids: string[]) => ids.map((id, order) => ({ id, type: 'events', order }));
const origin = 'http://127.0.0.1';

describe('insights: how the console reads each answer', () => {
  let a: AnalyticsContext;
  let persons: Record<'ada' | 'bob' | 'cy' | 'dee' | 'eve', TestPerson>;
  before(async () => {
    a = await setupAnalytics();
    await setTimezone(a.ctx.deps.db, a.teamId, 'Europe/Berlin');
    persons = await makeJourneys(a, {
      ada: [
        ['$pageview', '2024-01-08T09:00:00Z', view('https://app.example.com/')],
        ['$pageview', '2024-01-08T09:01:00Z', view('https://app.example.com/pricing')],
        ['signed up', '2024-01-08T09:05:00Z'],
        ['$pageview', '2024-01-09T09:00:00Z', view('https://app.example.com/')],
      ],
      bob: [
        ['$pageview', '2024-01-08T10:00:00Z', view('https://app.example.com/', 'Firefox')],
        ['$pageview', '2024-01-08T10:02:00Z', view('https://app.example.com/pricing', 'Firefox')],
        ['signed up', '2024-01-08T10:12:00Z'],
      ],
      cy: [
        ['$pageview', '2024-01-08T11:00:00Z', view('https://app.example.com/')],
        ['$pageview', '2024-01-08T11:03:00Z', view('https://app.example.com/pricing')],
        ['$pageview', '2024-01-10T11:00:00Z', view('https://app.example.com/')],
      ],
      dee: [
        ['$pageview', '2024-01-08T12:00:00Z', view('https://app.example.com/')],
        ['$pageview', '2024-01-08T12:04:00Z', view('https://app.example.com/pricing')],
      ],
      // 23:30 UTC is the 10th in Berlin: eve's cohort is the 10th, not the 9th.
      eve: [['$pageview', '2024-01-09T23:30:00Z', view('https://app.example.com/')]],
    });
    // dee dropped off, then was deleted; the events stay and are counted.
    await deletePerson(a.ctx.deps.db, a.teamId, persons.dee);
  });
  after(() => a.ctx.close());

  /** Every person a point's link lists (all pages), with the deleted the envelopes reported. */
  async function personsOfPoint(point: InsightPoint) {
    let path = personsPath(point.url, a.teamId, origin);
    assert.ok(path, `${point.url} is a persons view of this project`);
    const uuids: string[] = [];
    let missing = 0;
    while (path) {
      const res = await followLink(a, path);
      assert.equal(res.status, 200, res.text);
      const page = personsPage(res.body, point.appearance);
      uuids.push(...page.persons.map((person) => person.uuid));
      missing += page.missing;
      path = page.next ? personsPath(page.next, a.teamId, origin) : null;
    }
    return { uuids: uuids.sort(), deleted: deletedSince(point, uuids.length, missing, true) };
  }
  const uuids = (...names: Array<keyof typeof persons>) => names.map((name) => persons[name].uuid).sort();

  it('funnel: converted and dropped-off add up to the step before, each listing its persons, the deleted told', async () => {
    const res = await getInsight(a, 'funnel', {
      events: steps('$pageview', 'signed up'),
      date_from: '2024-01-08',
      date_to: '2024-01-12',
    });
    assert.equal(res.status, 200, res.text);
    const [group] = funnelGroups(res.body.result);
    assert.equal(group.entered, 5);
    const [, signedUp] = group.steps;
    assert.deepEqual([signedUp.converted, signedUp.dropped], [2, 3]);
    assert.equal(signedUp.fromFirst, 2 / 5);
    // ada took 5 minutes, bob 12 (from their first pageview): the median is between.
    assert.ok(signedUp.medianSeconds !== null && signedUp.medianSeconds >= 300 && signedUp.medianSeconds <= 720);

    const converted = await personsOfPoint({ title: 'c', url: signedUp.convertedUrl ?? '', persons: 2 });
    assert.deepEqual(converted, { uuids: uuids('ada', 'bob'), deleted: 0 });
    const dropped = await personsOfPoint({ title: 'd', url: signedUp.droppedUrl ?? '', persons: 3 });
    assert.deepEqual(dropped, { uuids: uuids('cy', 'eve'), deleted: 1 });
    assert.equal(dropped.uuids.length + dropped.deleted, signedUp.dropped);
  });

  it('funnel by a property: one funnel per value', async () => {
    const res = await getInsight(a, 'funnel', {
      events: steps('$pageview', 'signed up'),
      date_from: '2024-01-08',
      date_to: '2024-01-12',
      breakdown: '$browser',
      breakdown_type: 'event',
    });
    assert.equal(res.status, 200, res.text);
    const groups = funnelGroups(res.body.result);
    assert.deepEqual(
      groups.map((group) => [group.breakdown, group.entered, group.steps[1].converted, group.steps[1].dropped]),
      [
        ['Chrome', 4, 1, 3],
        ['Firefox', 1, 1, 0],
      ],
    );
  });

  it("retention: cohorts dated in the project's timezone, each cell listing who came back", async () => {
    const res = await getInsight(a, 'retention', {
      target_entity: { id: '$pageview', type: 'events' },
      returning_entity: { id: '$pageview', type: 'events' },
      period: 'Day',
      date_to: '2024-01-10',
      total_intervals: 3,
    });
    assert.equal(res.status, 200, res.text);
    const table = retentionTable(res.body.result, 'Day');
    assert.deepEqual(
      table.cohorts.map((cohort) => [cohort.label, cohort.size, cohort.cells.map((cell) => cell.count)]),
      [
        ['8 Jan 2024', 4, [4, 1, 1]],
        ['9 Jan 2024', 1, [1, 0]],
        ['10 Jan 2024', 2, [2]],
      ],
    );
    const eighth = table.cohorts[0];
    assert.ok(eighth.url);
    const cell = (appearance: number) => ({
      title: 't',
      url: eighth.url ?? '',
      persons: eighth.cells[appearance].count,
      appearance,
    });
    assert.deepEqual(await personsOfPoint(cell(1)), { uuids: uuids('ada'), deleted: 0 });
    assert.deepEqual(await personsOfPoint(cell(2)), { uuids: uuids('cy'), deleted: 0 });
    // Period 0 is the whole cohort, dee counted and deleted since.
    assert.deepEqual(await personsOfPoint(cell(0)), { uuids: uuids('ada', 'bob', 'cy'), deleted: 1 });
  });

  it('paths: nodes named without step prefixes, each ribbon listing the persons who took it', async () => {
    const res = await getInsight(a, 'path', { date_from: '2024-01-08', date_to: '2024-01-12' });
    assert.equal(res.status, 200, res.text);
    const layout = flowLayout(res.body.result);
    assert.ok(layout.nodes.length > 0);
    for (const node of layout.nodes) assert.doesNotMatch(node.name, /^\d+_/, node.key);
    const toPricing = layout.links.find(
      (link) => link.source.label === '/' && link.target.label === '/pricing' && link.source.step === 1,
    );
    assert.ok(toPricing, 'the link from / to /pricing');
    assert.equal(toPricing.persons, 4);
    const listed = await personsOfPoint({ title: 'p', url: toPricing.url ?? '', persons: toPricing.persons });
    assert.deepEqual(listed, { uuids: uuids('ada', 'bob', 'cy'), deleted: 1 });
  });

  it('lifecycle: the four statuses named once, the event said apart', async () => {
    const res = await getInsight(a, 'trend', {
      events: [{ id: '$pageview', type: 'events' }],
      shown_as: 'Lifecycle',
      date_from: '2024-01-08',
      date_to: '2024-01-10',
    });
    assert.equal(res.status, 200, res.text);
    const model = trendModel('lifecycle', res.body.result);
    assert.deepEqual(
      model.series.map((series) => series.label),
      ['New', 'Returning', 'Resurrecting', 'Dormant'],
    );
    assert.equal(model.subject, '$pageview');
    assert.equal(model.labels.length, 3);
  });
});
