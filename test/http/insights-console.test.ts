// The console's insights screen against the real endpoints: what it asks each insight answers 200,
// the chart models of its result read the answer, and every persons link of a point lists persons of
// this project.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { emptyFilters } from '../../console/src/filters/filter-model.ts';
import { funnelGroups } from '../../console/src/insights/charts/funnel-model.ts';
import { flowLayout } from '../../console/src/insights/charts/paths-layout.ts';
import { personsPage, personsPath } from '../../console/src/insights/charts/points.ts';
import { retentionTable } from '../../console/src/insights/charts/retention-model.ts';
import { trendModel } from '../../console/src/insights/charts/trend-model.ts';
import {
  defaultInsight,
  insightRequest,
  newSeries,
  type InsightKind,
  type InsightState,
} from '../../console/src/insights/insight-query.ts';
import { queryString, setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { followLink, getInsight, makeJourneys } from '../helpers/insights.ts';

const form = (kind: InsightKind, change: Partial<InsightState> = {}): InsightState => ({
  ...defaultInsight(),
  kind,
  series: [
    { ...newSeries('$pageview'), math: 'dau' },
    { ...newSeries('signup'), math: 'dau' },
  ],
  returning: 'signup',
  dateFrom: '2024-01-08',
  dateTo: '2024-01-12',
  ...change,
});
// What the console's breakdown and filter controls add: a person breakdown, a series filter on the
// event's own property, and an insight filter on the person's.
const filtered = (kind: InsightKind) =>
  form(kind, {
    breakdown: 'plan',
    breakdownType: 'person',
    series: [
      {
        ...newSeries('$pageview'),
        filters: {
          ...emptyFilters(),
          rows: [{ type: 'event', key: '$current_url', operator: 'icontains', value: 'home' }],
        },
      },
      newSeries('signup'),
    ],
    filters: { ...emptyFilters(), rows: [{ type: 'person', key: 'plan', operator: 'is_set', value: '' }] },
  });
const view = (url: string) => ({ $current_url: url });

interface ChartPoint {
  /** The series (trends) or funnel (by breakdown value) the point belongs to, as the console names it. */
  series: string;
  value: number;
  url: string | null;
}

/** Every point of an answer that the console's result (charts/insight-result.tsx) offers, with its persons link. */
function chartPoints(kind: InsightKind, answer: { result?: unknown }): ChartPoint[] {
  switch (kind) {
    case 'funnel':
      return funnelGroups(answer.result).flatMap((group) =>
        group.steps.flatMap((step) => [
          { series: group.breakdown ?? 'Converted', value: step.converted, url: step.convertedUrl },
          { series: group.breakdown ?? 'Dropped off', value: step.dropped, url: step.droppedUrl },
        ]),
      );
    case 'retention':
      return retentionTable(answer.result).cohorts.map((cohort) => ({
        series: cohort.label,
        value: cohort.size,
        url: cohort.url,
      }));
    case 'paths':
      return flowLayout(answer.result).links.map((link) => ({
        series: `${link.source.name} → ${link.target.name}`,
        value: link.persons,
        url: link.url,
      }));
    default:
      return trendModel(kind, answer.result).series.flatMap((series) =>
        series.values.map((value, index) => ({ series: series.label, value, url: series.urls[index] })),
      );
  }
}

describe("insights: the console's requests and links", () => {
  let a: AnalyticsContext;
  before(async () => {
    a = await setupAnalytics();
    await makeJourneys(a, {
      alice: {
        properties: { plan: 'pro' },
        events: [
          ['$pageview', '2024-01-09T10:00:00Z', view('/home')],
          ['signup', '2024-01-09T10:05:00Z'],
          ['$pageview', '2024-01-10T10:00:00Z', view('/home')],
        ],
      },
      bob: [
        ['$pageview', '2024-01-10T12:00:00Z', view('/home')],
        ['$pageview', '2024-01-10T12:01:00Z', view('/docs')],
      ],
    });
  });
  after(() => a.ctx.close());

  const cases = [
    ...(['trends', 'stickiness', 'lifecycle', 'funnel', 'retention', 'paths'] as InsightKind[]).map((kind) => ({
      kind,
      variant: 'plain',
    })),
    ...(['trends', 'funnel'] as InsightKind[]).map((kind) => ({ kind, variant: 'filtered' })),
  ];
  for (const { kind, variant } of cases) {
    it(`${kind} (${variant}): the chart's numbers come with links the console follows to the persons behind them`, async () => {
      const state = variant === 'filtered' ? filtered(kind) : form(kind);
      const { path, query } = insightRequest(a.teamId, state);
      const params = Object.fromEntries(
        Object.entries(query)
          .filter(([, value]) => value !== '' && value !== undefined && value !== null)
          .map(([key, value]) => [key, String(value)]),
      );
      const res = await getInsight(a, path.split('/insights/')[1].replace(/\/$/, ''), params);
      assert.equal(res.status, 200, `${path}${queryString(params)}: ${res.text}`);
      const points = chartPoints(kind, res.body);
      assert.ok(
        points.some((point) => point.value !== 0),
        'the chart shows numbers',
      );
      if (variant === 'filtered' && kind === 'trends') {
        // Only alice has a plan: one breakdown value, hers.
        assert.ok(
          points.every((point) => / · pro$/.test(point.series)),
          points.map((point) => point.series).join(', '),
        );
      }
      // bob (no plan) is filtered out of the funnel: alice alone enters it.
      if (variant === 'filtered' && kind === 'funnel') assert.equal(funnelGroups(res.body.result)[0].entered, 1);
      let followed = 0;
      for (const [index, point] of points.entries()) {
        if (point.url === null || point.value === 0) continue;
        const persons = personsPath(point.url, a.teamId, 'http://127.0.0.1');
        assert.ok(persons, `the console follows ${point.url}`);
        const listed = await followLink(a, persons);
        assert.equal(listed.status, 200, listed.text);
        assert.ok(personsPage(listed.body).persons.length > 0, `${point.series} #${index} lists persons`);
        followed += 1;
      }
      assert.ok(followed > 0, 'some point was followed');
    });
  }
});
