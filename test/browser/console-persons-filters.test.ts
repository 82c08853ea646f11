// The persons list's filters in Chromium: property keys and values offered from the project's
// person properties (picked with the keyboard too), and the search and filters in the route — a
// reload or a shared link lists the same persons, and coming back from a person keeps them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import {
  aria,
  capture,
  click,
  fill,
  mainText,
  openSignedIn,
  screenshot,
  startConsoleHarness,
  waitForLoaded,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

const HOSTILE = '<img src=x onerror="alert(1)">';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

const person = (distinctId: string, properties: Record<string, unknown>) => ({
  event: '$set',
  distinct_id: distinctId,
  timestamp: new Date().toISOString(),
  properties: { $set: properties },
});

async function routeQuery(): Promise<URLSearchParams> {
  const hash = (await page.evaluate('location.hash')) as string;
  return new URLSearchParams(hash.split('?')[1] ?? '');
}

async function listed(): Promise<string> {
  await waitForLoaded(page);
  return mainText(page);
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, [
    person('ada', { email: 'ada@example.com', plan: 'pro', company: 'Analytical Engines' }),
    person('bob', { email: 'bob@example.com', plan: 'free' }),
    person('cy', { email: 'cy@example.com', plan: 'pro', company: 'Cyan' }),
    person('dee', { email: 'dee@example.com', plan: 'enterprise' }),
    // Captured text is hostile: a value that is markup is offered as the text it is.
    person('eve', { email: 'eve@example.com', plan: HOSTILE }),
  ]);
  watched = await openSignedIn(harness);
  page = watched.page;
  await page.waitForSelector(aria('Search persons'));
  await waitForText(page, '5 persons');
});

after(async () => {
  await harness?.close();
});

describe('console: persons filters from the definitions, in the route', () => {
  it('offers person property keys and their values, picked with the keyboard', async () => {
    await click(page, 'Add filter');
    await fill(page, 'Filter 1 key', 'pl');
    await page.locator(aria('plan', 'option')).wait();
    assert.equal(await page.$(aria('company', 'option')), null, 'typing narrows the keys');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.equal(
      await page.$eval('#persons-filter-0-key', (input) => (input as unknown as { value: string }).value),
      'plan',
    );

    await fill(page, 'Filter 1 value', '');
    // The values of plan, most persons first: pro (2), then the others.
    await page.locator(aria('enterprise', 'option')).wait();
    await screenshot(page, 'persons-filter-values');
    const options = await page.$$eval('#persons-filter-0-value-options [role="option"]', (items) =>
      items.map((item) => (item as unknown as { textContent: string }).textContent),
    );
    assert.deepEqual(options.slice(0, 1), ['pro']);
    assert.deepEqual([...options].sort(), [HOSTILE, 'enterprise', 'free', 'pro']);
    assert.equal(await page.$('[role="listbox"] img'), null, 'no markup of a value is parsed');
    await page.locator(aria('pro', 'option')).click();
    await fill(page, 'Search persons', 'example.com');
    await click(page, 'Search');
    await waitForText(page, '2 persons');
    const shown = await listed();
    assert.match(shown, /ada@example\.com/);
    assert.match(shown, /cy@example\.com/);
    assert.doesNotMatch(shown, /bob@example\.com|dee@example\.com/);
  });

  it('keeps the search and filters in the route: a reload and a shared link list the same persons', async () => {
    const query = await routeQuery();
    assert.equal(query.get('search'), 'example.com');
    assert.deepEqual(JSON.parse(query.get('properties') ?? 'null'), {
      type: 'AND',
      values: [{ type: 'AND', values: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'person' }] }],
    });

    await page.reload();
    await waitForText(page, '2 persons');
    assert.equal(
      await page.$eval('#persons-search', (input) => (input as unknown as { value: string }).value),
      'example.com',
    );
    assert.equal(
      await page.$eval('#persons-filter-0-value', (input) => (input as unknown as { value: string }).value),
      'pro',
    );

    // A link naming other filters, opened in a fresh tab's page: its list.
    const link = new URLSearchParams({
      properties: JSON.stringify([{ key: 'plan', value: 'enterprise', type: 'person' }]),
    });
    await page.goto('about:blank');
    await page.goto(`${harness.baseUrl}/#/p/${harness.tenant.project.id}/persons?${link.toString()}`);
    await waitForText(page, '1 person');
    assert.match(await listed(), /dee@example\.com/);
    // And one pasted while the list is open.
    await page.evaluate((hash: string) => {
      (globalThis as unknown as { location: { hash: string } }).location.hash = hash;
    }, `#/p/${harness.tenant.project.id}/persons?search=bob`);
    // The list of the link before it still reads "1 person": wait for the new one's row.
    await waitForText(page, 'bob@example.com');
    await waitForText(page, '1 person');
    const pasted = await listed();
    assert.match(pasted, /bob@example\.com/);
    assert.doesNotMatch(pasted, /dee@example\.com/);
  });

  it('comes back from a person to the same list', async () => {
    await click(page, 'bob@example.com', 'link');
    await page.waitForSelector(aria('bob@example.com', 'heading'));
    await page.goBack();
    await waitForText(page, '1 person');
    assert.equal((await routeQuery()).get('search'), 'bob');
    assert.match(await listed(), /bob@example\.com/);
    await click(page, 'Clear filters');
    await waitForText(page, '5 persons');
    assert.equal((await routeQuery()).toString(), '');
    assert.deepEqual(watched.problems, []);
  });
});
