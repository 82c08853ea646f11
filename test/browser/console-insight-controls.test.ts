// The insights screen's controls in Chromium: the "Event" combobox offers the project's event names
// (and says when a typed one was never seen), date presets, the insight in the route (opening a
// route shows it, every change rewrites it), breakdowns, property filters per series and for the
// insight, the interval only where it applies, and saved insights saved, listed, opened, renamed
// and deleted. The expected numbers come from the captured events, not from the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import type { Page } from 'puppeteer-core';
import {
  aria,
  capture,
  choose,
  click,
  fill,
  mainText,
  openInsights,
  pickOption,
  screenshot,
  startConsoleHarness,
  waitForLoaded,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;
let insightsUrl: string;

// Days before today (the server's clock is the real one): inside "Last 7 days".
const at = (daysAgo: number, hour: number) => {
  const day = new Date(Date.now() - daysAgo * 86_400_000);
  day.setUTCHours(hour, 0, 0, 0);
  return day.toISOString();
};
const pageview = (distinctId: string, daysAgo: number, browser: string, hour = 10) => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp: at(daysAgo, hour),
  properties: { $browser: browser, $current_url: 'https://app.example.com/' },
});

/** The route's query as parameters (JSON ones parsed). */
async function routeParameters(): Promise<Record<string, unknown>> {
  const hash = (await page.evaluate('location.hash')) as string;
  const query = new URLSearchParams(hash.split('?')[1] ?? '');
  return Object.fromEntries(
    [...query].map(([name, value]) => [name, /^[[{]/.test(value) ? (JSON.parse(value) as unknown) : value]),
  );
}

/** Waits until the route's query holds these parameters (a change is written at once). */
async function waitForRoute(
  expected: Record<string, unknown>,
  holds: (parameters: Record<string, unknown>) => boolean = () => true,
) {
  const deadline = Date.now() + 10_000;
  let parameters = await routeParameters();
  while (Date.now() < deadline) {
    parameters = await routeParameters();
    const same = Object.entries(expected).every(
      ([name, value]) => JSON.stringify(parameters[name]) === JSON.stringify(value),
    );
    if (same && holds(parameters)) return parameters;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`the route ${JSON.stringify(parameters)} does not hold ${JSON.stringify(expected)}`);
}

/** The insight requests the page sent since `from` (index into the watched requests), as parameters. */
function insightRequests(from: number, endpoint: string) {
  return watched.requests
    .slice(from)
    .filter((url) => url.includes(`/insights/${endpoint}/`))
    .map((url) => Object.fromEntries(new URL(url).searchParams));
}

/** Waits until the page asked the endpoint with these parameters since `from`, and drew the answer. */
async function waitForInsight(from: number, endpoint: string, expected: Record<string, string>) {
  const matches = () =>
    insightRequests(from, endpoint).some((sent) =>
      Object.entries(expected).every(([name, value]) => sent[name] === value),
    );
  const deadline = Date.now() + 10_000;
  while (!matches()) {
    if (Date.now() > deadline) assert.fail(`no ${endpoint} request with ${JSON.stringify(expected)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await waitForPoints();
}

/** Waits for the insight drawn: a funnel reads as its steps, the other kinds list every point in a table. */
async function waitForPoints(kind: 'funnel' | 'other' = 'other') {
  await page.waitForSelector(
    kind === 'funnel' ? aria('Funnel', 'region') : aria('Every point; choose one to list its persons', 'table'),
  );
  await waitForLoaded(page);
}

/**
 * Waits until the field of that name shows `value` (a chosen option is written into the field on
 * the next render, not by the click itself), and fails with what it shows otherwise.
 */
async function waitForValue(label: string, role: string, value: string) {
  const shown = () =>
    page.$eval(aria(label, role), (field) => (field as unknown as { value: string }).value) as Promise<string>;
  const deadline = Date.now() + 10_000;
  let current = await shown();
  while (current !== value && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    current = await shown();
  }
  assert.equal(current, value, `the ${label} field`);
}

/** Types into a field as a person does: what it held selected and typed over. */
async function typeIn(label: string, value: string) {
  await fill(page, label, '');
  if (value !== '') await page.locator(aria(label)).fill(value);
}

/** Goes to a route of the console as a pasted link would. */
async function openRoute(route: string) {
  // A fresh page, as a link opened in a tab is (the session's key stays in the tab).
  await page.goto('about:blank');
  await page.goto(`${harness.baseUrl}/${route}`);
  await page.waitForSelector(aria('Insight', 'combobox'));
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, [
    {
      event: '$set',
      distinct_id: 'ada',
      timestamp: at(3, 8),
      properties: { $set: { email: 'ada@example.com', plan: 'pro' } },
    },
    {
      event: '$set',
      distinct_id: 'bob',
      timestamp: at(3, 8),
      properties: { $set: { email: 'bob@example.com', plan: 'free' } },
    },
    {
      event: '$set',
      distinct_id: 'cy',
      timestamp: at(3, 8),
      properties: { $set: { email: 'cy@example.com', plan: 'pro' } },
    },
    pageview('ada', 2, 'Chrome'),
    pageview('ada', 1, 'Chrome'),
    pageview('bob', 2, 'Safari'),
    pageview('cy', 1, 'Chrome'),
    pageview('cy', 1, 'Firefox', 11),
    { event: 'signed up', distinct_id: 'ada', timestamp: at(1, 12), properties: { plan: 'pro' } },
    { event: 'signed up', distinct_id: 'cy', timestamp: at(1, 13), properties: { plan: 'free' } },
  ]);
  insightsUrl = `#/p/${harness.tenant.project.id}/insights`;
  watched = await openInsights(harness, 'Event');
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: the insight controls', () => {
  it('offers the project event names in the "Event" combobox, typed to search, and says when a name was never seen', async () => {
    await typeIn('Event', 'sig');
    await pickOption(page, 'sig', 'signed up');
    await waitForValue('Event', 'combobox', 'signed up');
    await waitForRoute({ insight: 'TRENDS', events: [{ id: 'signed up', type: 'events', order: 0 }] });
    await waitForPoints();
    assert.doesNotMatch(await mainText(page), /Never seen/);

    // Every name of the project is an option; a typo is free text, said to be unknown, and draws nothing.
    await typeIn('Event', '');
    await page.locator(aria('$pageview', 'option')).wait();
    await screenshot(page, 'insight-event-picker');
    await typeIn('Event', '$pagevew');
    await waitForText(page, 'Never seen in this project: $pagevew');
    await page.waitForSelector(aria('Every point; choose one to list its persons', 'table'), { hidden: true });
    const text = await mainText(page);
    assert.match(text, /Never seen in this project\n/);
  });

  it('puts every change in the route, and a route opened shows its insight', async () => {
    await typeIn('Event', '$pageview');
    await choose(page, 'Measure', 'Unique persons');
    await choose(page, 'Interval', 'week');
    await choose(page, 'Date range', 'Last 30 days');
    const route = await waitForRoute({
      insight: 'TRENDS',
      events: [{ id: '$pageview', type: 'events', order: 0, math: 'dau' }],
      interval: 'week',
      date_from: '-30d',
    });
    assert.equal(route.date_to, undefined);
    await waitForPoints();

    // Reload: the same insight, drawn.
    const from = watched.requests.length;
    await page.reload();
    await page.waitForSelector(aria('Insight', 'combobox'));
    await waitForPoints();
    await waitForValue('Event', 'combobox', '$pageview');
    assert.equal(
      await page.$eval('#insight-interval', (select) => (select as unknown as { value: string }).value),
      'week',
    );
    const sent = insightRequests(from, 'trend').at(-1);
    assert.ok(sent, 'the reloaded insight was asked for');
    assert.equal(sent.interval, 'week');
    assert.equal(sent.date_from, '-30d');
    assert.deepEqual(JSON.parse(sent.events), [{ id: '$pageview', type: 'events', order: 0, math: 'dau' }]);

    // A shared funnel link: its kind, steps and custom dates are shown, and the funnel has no interval.
    const events = JSON.stringify([
      { id: '$pageview', type: 'events', order: 0 },
      { id: 'signed up', type: 'events', order: 1 },
    ]);
    const from2 = watched.requests.length;
    await openRoute(
      `${insightsUrl}?insight=FUNNELS&events=${encodeURIComponent(events)}&date_from=${at(6, 0).slice(0, 10)}&date_to=${at(0, 0).slice(0, 10)}`,
    );
    await waitForPoints('funnel');
    assert.equal(
      await page.$eval('#insight-kind', (select) => (select as unknown as { value: string }).value),
      'funnel',
    );
    assert.equal(
      await page.$eval('#insight-event-1', (input) => (input as unknown as { value: string }).value),
      'signed up',
    );
    assert.equal(
      await page.$eval('#insight-range', (select) => (select as unknown as { value: string }).value),
      'custom',
    );
    assert.equal(await page.$('#insight-interval'), null, 'a funnel of steps has no interval');
    const funnel = insightRequests(from2, 'funnel').at(-1);
    assert.ok(funnel);
    assert.equal(funnel.date_from, at(6, 0).slice(0, 10));
    assert.deepEqual(JSON.parse(funnel.events), JSON.parse(events));
    // ada and cy converted: the chart's points say 2 at the second step.
    await page.locator(aria('Persons of Converted, 2. signed up: 2')).wait();
  });

  it('offers the interval only where it applies: a period for retention, none for paths', async () => {
    await choose(page, 'Insight', 'Retention');
    await page.waitForSelector(aria('Period', 'combobox'));
    await page.waitForSelector(aria('Returning event', 'combobox'));
    await waitForRoute({ insight: 'RETENTION', target_entity: { id: '$pageview', type: 'events' }, period: 'Day' });
    await choose(page, 'Insight', 'Paths');
    await waitForRoute({ insight: 'PATHS' });
    assert.equal(await page.$('#insight-interval'), null);
    assert.equal(await page.$('#insight-event-0'), null);
    await choose(page, 'Insight', 'Lifecycle');
    await page.waitForSelector(aria('Interval', 'combobox'));
  });

  it('breaks a trend down by an event property picked from the definitions', async () => {
    await openRoute(`${insightsUrl}?insight=TRENDS`);
    const from = watched.requests.length;
    await typeIn('Breakdown', '$brow');
    await pickOption(page, '$brow', '$browser');
    const route = await waitForRoute({ breakdown: '$browser', breakdown_type: 'event' });
    assert.equal(route.insight, 'TRENDS');
    await waitForInsight(from, 'trend', { breakdown: '$browser', breakdown_type: 'event' });
    const text = await mainText(page);
    for (const browser of ['Chrome', 'Safari', 'Firefox']) {
      assert.match(text, new RegExp(`\\$pageview · ${browser}\\n`));
      assert.doesNotMatch(text, new RegExp(`${browser} · ${browser}`));
    }
    await screenshot(page, 'insight-controls');
  });

  it('filters the insight and one series by properties, keys and values from the definitions', async () => {
    await openRoute(`${insightsUrl}?insight=TRENDS`);
    const from = watched.requests.length;
    await click(page, 'Add filter');
    await choose(page, 'Filter 1 type', 'Event property');
    await typeIn('Filter 1 key', '$bro');
    await pickOption(page, '$bro', '$browser');
    await typeIn('Filter 1 value', '');
    await page.locator(aria('Safari', 'option')).wait();
    await pickOption(page, '', 'Chrome');
    const properties = {
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: '$browser', operator: 'exact', value: 'Chrome', type: 'event' }] }],
    };
    await waitForRoute({ properties });
    await waitForInsight(from, 'trend', { properties: JSON.stringify(properties) });
    // Chrome page views: ada twice, cy once.
    const total = await page.$$eval('table.points tbody td', (cells) =>
      cells.reduce((sum, cell) => sum + Number((cell as unknown as { innerText: string }).innerText), 0),
    );
    assert.equal(total, 3);

    // A second series of sign-ups by pro persons only.
    await click(page, 'Add series');
    await typeIn('Event 2', 'signed up');
    await click(page, 'Add series 2 filter');
    await choose(page, 'Series 2 filter 1 type', 'Person property');
    await typeIn('Series 2 filter 1 key', 'plan');
    await typeIn('Series 2 filter 1 value', 'pro');
    const second = {
      id: 'signed up',
      type: 'events',
      order: 1,
      properties: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'person' }],
    };
    // Typing writes the route letter by letter: wait for the whole value, then read the series.
    const route = await waitForRoute({ insight: 'TRENDS' }, (parameters) =>
      isDeepStrictEqual((parameters.events as unknown[] | undefined)?.[1], second),
    );
    assert.deepEqual((route.events as unknown[])[1], second);
    // The insight's Chrome filter holds for sign-ups too (they carry no browser): none.
    await page.locator(aria('Event 2', 'combobox')).wait();
  });

  it('saves the insight, lists it, opens it again, renames and deletes it', async () => {
    await openRoute(
      `${insightsUrl}?insight=FUNNELS&events=${encodeURIComponent(JSON.stringify([{ id: '$pageview' }, { id: 'signed up' }]))}`,
    );
    await waitForPoints('funnel');
    await fill(page, 'Name', 'Sign-up funnel');
    await click(page, 'Save this insight');
    await waitForText(page, 'Saved Sign-up funnel.');
    await screenshot(page, 'saved-insights');
    const saved = await harness.ctx.app.inject({
      url: `/api/projects/${harness.tenant.project.id}/insights/`,
      headers: harness.tenant.headers,
    });
    const [stored] = (saved.json() as { results: Array<{ name: string; filters: Record<string, unknown> }> }).results;
    assert.equal(stored.name, 'Sign-up funnel');
    assert.equal(stored.filters.insight, 'FUNNELS');
    assert.deepEqual(
      (stored.filters.events as Array<{ id: string }>).map((event) => event.id),
      ['$pageview', 'signed up'],
    );

    // Another insight on screen, then the saved one opened: the funnel again, in the route too.
    // Each insight drawn before the next act: a result that arrives late moves the saved insights
    // below it, and a click aimed before the move lands elsewhere.
    await choose(page, 'Insight', 'Stickiness');
    await waitForRoute({ insight: 'STICKINESS' });
    await waitForPoints();
    await click(page, 'Open Sign-up funnel');
    await waitForRoute({ insight: 'FUNNELS' });
    await waitForPoints('funnel');
    assert.equal(
      await page.$eval('#insight-event-1', (input) => (input as unknown as { value: string }).value),
      'signed up',
    );

    await click(page, 'Rename Sign-up funnel');
    await fill(page, 'New name of Sign-up funnel', 'Activation');
    await click(page, 'Save name');
    await waitForText(page, 'Renamed Sign-up funnel to Activation.');
    await page.locator(aria('Open Activation', 'button')).wait();

    await click(page, 'Delete Activation');
    await page.waitForSelector(aria('Confirm deleting Activation', 'group'));
    await click(page, 'Yes, delete it');
    await waitForText(page, 'No saved insights yet.');
    assert.deepEqual(watched.problems, []);
  });
});
