// Captured data is hostile: a visitor of any tracked site sets person properties, property keys
// and distinct ids. The console shows them as the characters they are, follows none as a link, and
// nothing in them runs.
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
  startConsoleHarness,
  text,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

const NAME = `<img src=x onerror="document.title='pwned';fetch('/pwned-name')">`;
const BIO = `<script>document.title='pwned';fetch('/pwned-bio')</script>`;
const KEY = `<b onmouseover="fetch('/pwned-key')">bold</b>`;
const LINK = 'javascript:fetch("/pwned-link")';
const DISTINCT_ID = `<svg onload="fetch('/pwned-id')">`;
const EVENT = `<img src=y onerror="fetch('/pwned-event')">`;

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

/** Nothing of the payloads ran: no request of theirs, no title change, no dialog, no refused inline script. */
async function assertNothingRan() {
  assert.equal(await page.title(), 'herd console');
  // The path of a request a payload would make (a search for a payload carries it in its query).
  const suspicious = watched.requests.filter((url) => /pwned|^\/[xy]$/.test(new URL(url).pathname));
  assert.deepEqual(suspicious, [], 'no request made by a payload');
  assert.deepEqual(watched.problems, [], 'no page error, dialog or refused inline script');
  // A person sees no image, drawing or bold text made of the payloads.
  assert.equal((await page.$$('main img, main svg, main b, main script')).length, 0);
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, [
    {
      event: EVENT,
      distinct_id: DISTINCT_ID,
      timestamp: '2024-03-01T10:00:00Z',
      properties: { $set: { name: NAME, bio: BIO, [KEY]: LINK, homepage: LINK } },
    },
  ]);
  watched = await openSignedIn(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: hostile captured data', () => {
  it('lists a person whose name is markup as those characters, its link leading to the person', async () => {
    await waitForText(page, '1 person');
    await page.waitForSelector(aria(NAME, 'link'));
    const shown = await mainText(page);
    assert.ok(shown.includes(NAME), 'the name is shown as text');
    assert.ok(shown.includes(DISTINCT_ID), 'the distinct id is shown as text');
    await assertNothingRan();
  });

  it("shows the person's properties, keys and timeline as text and follows no captured URL", async () => {
    await click(page, NAME, 'link');
    await page.waitForSelector(aria(NAME, 'heading'));
    const shown = await mainText(page);
    for (const payload of [BIO, KEY, LINK, DISTINCT_ID])
      assert.ok(shown.includes(payload), `shown as text: ${payload}`);
    assert.equal(await page.$(aria(LINK, 'link')), null, 'a captured URL is no link');
    await page.locator(text('Properties as of then')).click();
    await waitForText(page, BIO);
    await assertNothingRan();
  });

  it('edits a hostile property and shows the change in the activity as text', async () => {
    await click(page, 'Edit bio');
    await fill(page, 'New value of bio', `${BIO} (cleaned)`);
    await click(page, 'Save bio');
    await waitForText(page, `bio: ${BIO} → ${BIO} (cleaned)`);
    await click(page, `Edit ${KEY}`);
    await click(page, `Delete ${KEY}`);
    // The confirmation names the key and its value as text too.
    await page.waitForSelector(aria(`Delete the property ${KEY}?`, 'dialog'));
    await assertNothingRan();
    await click(page, 'Delete property');
    await page.waitForSelector(aria(`Editing ${KEY}`), { hidden: true });
    await waitForText(page, `${KEY}: ${LINK} → (none)`);
    await assertNothingRan();
  });

  it('shows the same data in the activity across persons and in the search as text', async () => {
    await click(page, 'Activity', 'link');
    await waitForText(page, `bio: ${BIO} → ${BIO} (cleaned)`);
    // Each entry names its person by the name it is listed with: the markup, as text.
    await page.waitForSelector(aria(NAME, 'link'));
    await click(page, 'Persons', 'link');
    await fill(page, 'Search persons', DISTINCT_ID);
    await click(page, 'Search');
    await waitForText(page, '1 person');
    await page.waitForSelector(aria(NAME, 'link'));
    await assertNothingRan();
  });
});
