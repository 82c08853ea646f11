// The console's insights in Chromium: a trend drawn from the insight endpoint, a click on its chart
// and a choice in its points table each list the persons behind that point; a funnel's drop-off
// lists who dropped. The expected persons come from the captured journeys, not from the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import {
  aria,
  capture,
  click,
  openInsights,
  screenshot,
  startConsoleHarness,
  text,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

const pageview = (distinctId: string, day: number, hour = 10) => ({
  event: '$pageview',
  distinct_id: distinctId,
  timestamp: `2024-01-${String(day).padStart(2, '0')}T${hour}:00:00Z`,
  properties: { $current_url: '/home' },
});
const person = (distinctId: string, email: string) => ({
  event: '$set',
  distinct_id: distinctId,
  timestamp: '2024-01-01T00:00:00Z',
  properties: { $set: { email } },
});

/** The rows of the table a person reads under that caption, as text. */
async function tableText(caption: string): Promise<string> {
  const table = await page.waitForSelector(aria(caption, 'table'));
  assert.ok(table, `a table "${caption}"`);
  return table.evaluate((element) => (element as unknown as { innerText: string }).innerText);
}

const KINDS: Record<string, string> = { Trends: 'TRENDS', Funnel: 'FUNNELS' };
const MATHS: Record<string, string> = { 'Unique persons': 'dau' };

/** Opens the insight as a shared link names it (`#/p/<id>/insights?insight=…`), then waits for its points. */
async function showInsight(kind: string, events: string, options: { math?: string; from?: string } = {}) {
  const entities = events.split(',').map((name, order) => ({
    id: name.trim(),
    type: 'events',
    order,
    ...(options.math ? { math: MATHS[options.math] } : {}),
  }));
  const query = new URLSearchParams({
    insight: KINDS[kind],
    events: JSON.stringify(entities),
    date_from: options.from ?? '2024-01-08',
    date_to: '2024-01-10',
  });
  await page.goto('about:blank');
  await page.goto(`${harness.baseUrl}/#/p/${harness.tenant.project.id}/insights?${query.toString()}`);
  // A funnel reads as its steps; the other kinds list every point in a table.
  await page.waitForSelector(
    kind === 'Funnel' ? aria('Funnel', 'region') : text('Every point; choose one to list its persons'),
  );
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, [
    person('ada', 'ada@example.com'),
    person('bob', 'bob@example.com'),
    person('carol', 'carol@example.com'),
    pageview('ada', 8),
    pageview('ada', 9),
    pageview('bob', 9),
    pageview('bob', 9, 11),
    pageview('carol', 10),
    { event: 'signed up', distinct_id: 'ada', timestamp: '2024-01-09T12:00:00Z', properties: {} },
  ]);
  watched = await openInsights(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: insights', () => {
  it('draws a trend of unique persons and lists the persons behind a point chosen in its table', async () => {
    await showInsight('Trends', '$pageview', { math: 'Unique persons' });
    await click(page, 'Persons of $pageview, 9-Jan-2024: 2');
    const listed = await tableText('Persons behind $pageview, 9-Jan-2024');
    assert.match(listed, /ada@example\.com/);
    assert.match(listed, /bob@example\.com/);
    assert.doesNotMatch(listed, /carol@example\.com/);
    await screenshot(page, 'insights');
  });

  it('lists the persons behind the point clicked on the chart', async () => {
    await showInsight('Trends', '$pageview', { math: 'Unique persons', from: '2024-01-09' });
    await page.waitForSelector(aria('Persons of $pageview, 9-Jan-2024: 2'));
    const chart = await page.waitForSelector(aria('Trends chart; the table below lists every point'));
    assert.ok(chart);
    const box = await chart.boundingBox();
    assert.ok(box, 'the chart is on screen');
    // Two days on the x axis: the right part of the plot is the last day, carol's only.
    await page.mouse.move(box.x + box.width * 0.85, box.y + box.height * 0.5);
    await page.mouse.click(box.x + box.width * 0.85, box.y + box.height * 0.5);
    const listed = await tableText('Persons behind $pageview, 10-Jan-2024');
    assert.match(listed, /carol@example\.com/);
    assert.doesNotMatch(listed, /ada@example\.com|bob@example\.com/);
  });

  it('lists who dropped off between the steps of a funnel', async () => {
    await showInsight('Funnel', '$pageview, signed up');
    await click(page, 'Persons of Dropped off, 2. signed up: 2');
    const listed = await tableText('Persons behind Dropped off, 2. signed up');
    assert.match(listed, /bob@example\.com/);
    assert.match(listed, /carol@example\.com/);
    assert.doesNotMatch(listed, /ada@example\.com/);
    assert.deepEqual(watched.problems, []);
  });
});
