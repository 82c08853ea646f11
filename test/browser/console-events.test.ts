// The console in Chromium: a person's Events section — newest first, name, time and key properties,
// every property on demand, paged by the API's cursor — with captured values shown as text.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import {
  aria,
  capture,
  click,
  openSignedIn,
  screenshot,
  startConsoleHarness,
  text,
  waitForLoaded,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

const HOSTILE_EVENT = `<img src=x onerror="fetch('/pwned-event')">`;
const HOSTILE_VALUE = `<script>fetch('/pwned-value')</script>`;

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

/** The text of the Events section, as a person reads it. */
const eventsText = () =>
  page.$eval(
    'section[aria-labelledby="events-heading"]',
    (element) => (element as unknown as { innerText: string }).innerText,
  );

before(async () => {
  harness = await startConsoleHarness();
  const batch: Array<Record<string, unknown>> = [
    {
      event: '$identify',
      distinct_id: 'ada',
      timestamp: '2024-01-01T09:00:00Z',
      properties: { $set: { email: 'ada@example.com' } },
    },
  ];
  // 15 pageviews, one a minute, the newest last: more than one page of 10.
  for (let n = 1; n <= 15; n++) {
    batch.push({
      event: '$pageview',
      distinct_id: 'ada',
      timestamp: `2024-01-02T10:${String(n).padStart(2, '0')}:00Z`,
      properties: { $current_url: `https://example.com/page-${n}`, $browser: 'Firefox', $os: 'Linux', step: n },
    });
  }
  batch.push({
    event: HOSTILE_EVENT,
    distinct_id: 'ada',
    timestamp: '2024-01-03T10:00:00Z',
    properties: { note: HOSTILE_VALUE, plan: 'pro' },
  });
  await capture(harness, batch);
  watched = await openSignedIn(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: a person’s events', () => {
  it('lists the events newest first with their time and key properties, captured text as text', async () => {
    await page.locator(aria('ada@example.com', 'link')).click();
    await page.waitForSelector(aria('Events', 'heading'));
    await waitForLoaded(page);
    await page.waitForSelector(aria('Events of this person, newest first', 'table'));
    const shown = await eventsText();
    // The hostile event is the newest; its name and property are the characters they are.
    assert.ok(shown.includes(HOSTILE_EVENT), 'the event name is shown as text');
    assert.ok(shown.includes(HOSTILE_VALUE), 'a key property is shown as text');
    assert.ok(shown.indexOf(HOSTILE_EVENT) < shown.indexOf('https://example.com/page-15'), 'newest first');
    assert.ok(shown.indexOf('page-15') < shown.indexOf('page-14'));
    assert.match(shown, /2024-01-02 10:15:00 UTC/);
    assert.match(shown, /\$browser\s+Firefox/);
    assert.ok(shown.includes('page-7') && !/page-6\b/.test(shown), 'older events are on the next page');
    assert.equal((await page.$$('main img, main script')).length, 0);
    assert.ok(!watched.requests.some((url) => /pwned/.test(url)), 'nothing captured ran');
    await screenshot(page, 'person-events');
  });

  it('shows every property of an event on demand', async () => {
    // Three key properties show at once ($current_url, $browser, $os); the others when asked for.
    assert.doesNotMatch(await eventsText(), /step\s+15/);
    await page.locator(text('Properties of $pageview')).click();
    await page.waitForFunction(
      `/step\\s+15/.test(document.querySelector('section[aria-labelledby="events-heading"]').innerText)`,
    );
    assert.match(await eventsText(), /\$os\s+Linux/);
  });

  it('pages to older events and back', async () => {
    await click(page, 'Older events');
    await waitForText(page, 'Page 2');
    await waitForLoaded(page);
    await page.waitForSelector(text('https://example.com/page-6'));
    const older = await eventsText();
    assert.match(older, /page-1\b/);
    assert.ok(older.includes('$identify'), 'the oldest event is on the last page');
    assert.ok(!older.includes('page-15') && !older.includes('page-7'));
    assert.equal(
      await page.$eval(aria('Older events', 'button'), (b) => (b as unknown as { disabled: boolean }).disabled),
      true,
    );
    await click(page, 'Newer events');
    await waitForText(page, 'Page 1');
    await page.waitForSelector(text('https://example.com/page-15'));
    assert.deepEqual(watched.problems, []);
  });
});
