// The console's insights screen against the real endpoints: what it asks each insight answers 200,
// its chart model reads the answer, and every persons link it follows lists persons of this project.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  chartModel,
  insightRequest,
  personsOf,
  personsPath,
  type InsightForm,
  type InsightKind,
} from '../../console/src/insights/insight-query.ts';
import { queryString, setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { followLink, getInsight, makeJourneys } from '../helpers/insights.ts';

const form = (kind: InsightKind): InsightForm => ({
  kind,
  events: '$pageview, signup',
  math: 'dau',
  interval: 'day',
  dateFrom: '2024-01-08',
  dateTo: '2024-01-12',
});
const view = (url: string) => ({ $current_url: url });

describe("insights: the console's requests and links", () => {
  let a: AnalyticsContext;
  before(async () => {
    a = await setupAnalytics();
    await makeJourneys(a, {
      alice: [
        ['$pageview', '2024-01-09T10:00:00Z', view('/home')],
        ['signup', '2024-01-09T10:05:00Z'],
        ['$pageview', '2024-01-10T10:00:00Z', view('/home')],
      ],
      bob: [
        ['$pageview', '2024-01-10T12:00:00Z', view('/home')],
        ['$pageview', '2024-01-10T12:01:00Z', view('/docs')],
      ],
    });
  });
  after(() => a.ctx.close());

  for (const kind of ['trends', 'stickiness', 'lifecycle', 'funnel', 'retention', 'paths'] as InsightKind[]) {
    it(`${kind}: the chart's numbers come with links the console follows to the persons behind them`, async () => {
      const { path, query } = insightRequest(a.teamId, form(kind));
      const params = Object.fromEntries(
        Object.entries(query)
          .filter(([, value]) => value !== '' && value !== undefined && value !== null)
          .map(([key, value]) => [key, String(value)]),
      );
      const res = await getInsight(a, path.split('/insights/')[1].replace(/\/$/, ''), params);
      assert.equal(res.status, 200, `${path}${queryString(params)}: ${res.text}`);
      const model = chartModel(form(kind), a.teamId, res.body);
      assert.ok(
        model.series.length > 0 && model.series.some((series) => series.values.some((value) => value !== 0)),
        'the chart shows numbers',
      );
      let followed = 0;
      for (const series of model.series) {
        for (const [index, url] of series.urls.entries()) {
          if (url === null || series.values[index] === 0) continue;
          const persons = personsPath(url, a.teamId, 'http://127.0.0.1');
          assert.ok(persons, `the console follows ${url}`);
          const listed = await followLink(a, persons);
          assert.equal(listed.status, 200, listed.text);
          assert.ok(personsOf(listed.body).persons.length > 0, `${series.label} #${index} lists persons`);
          followed += 1;
        }
      }
      assert.ok(followed > 0, 'some point was followed');
    });
  }
});
