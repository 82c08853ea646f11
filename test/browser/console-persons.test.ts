// The console in Chromium: signing in, the persons list (search, filters, cohort, count, pages, CSV),
// a person (edit, add and delete properties, split, delete with its events) and the deletion queue.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { bearer } from '../helpers/factories.ts';
import {
  aria,
  capture,
  choose,
  click,
  fill,
  mainText,
  openConsole,
  screenshot,
  signIn,
  startConsoleHarness,
  waitForLoaded,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

const ADA = { email: 'ada@example.com', name: 'Ada', plan: 'pro', age: 36 };

async function personsApi(query: string) {
  const response = await harness.ctx.app.inject({
    url: `/api/projects/${harness.tenant.project.id}/persons/?${query}`,
    headers: harness.tenant.headers,
  });
  return response.json() as {
    count: number;
    results: Array<{
      id: number;
      uuid: string;
      name: string;
      distinct_ids: string[];
      properties: Record<string, unknown>;
    }>;
  };
}

async function openPersons() {
  await click(page, 'Persons', 'link');
  await page.waitForSelector(aria('Search persons'));
}

before(async () => {
  harness = await startConsoleHarness();
  const batch: Array<Record<string, unknown>> = [
    {
      event: '$pageview',
      distinct_id: 'anon-ada',
      timestamp: '2024-01-01T09:00:00Z',
      properties: { $current_url: '/' },
    },
    {
      event: '$identify',
      distinct_id: 'ada',
      timestamp: '2024-01-01T09:01:00Z',
      properties: { $anon_distinct_id: 'anon-ada', $set: ADA },
    },
    {
      event: 'signed up',
      distinct_id: 'bob',
      timestamp: '2024-01-02T09:00:00Z',
      properties: { $set: { email: 'bob@example.com', plan: 'free', age: 20 } },
    },
    {
      event: 'signed up',
      distinct_id: 'carol',
      timestamp: '2024-01-03T09:00:00Z',
      properties: { $set: { email: 'carol@example.com', plan: 'pro', age: 50 } },
    },
  ];
  for (let n = 1; n <= 30; n += 1) {
    batch.push({
      event: '$pageview',
      distinct_id: `visitor-${n}`,
      timestamp: `2024-02-${String((n % 28) + 1).padStart(2, '0')}T10:00:00Z`,
      properties: { $set: { plan: 'trial' } },
    });
  }
  await capture(harness, batch);
  watched = await openConsole(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: persons', () => {
  it("refuses a wrong key with the API's message and shows nothing else", async () => {
    await fill(page, 'Personal API key', 'phx_not_a_real_key_at_all');
    await click(page, 'Sign in');
    await waitForText(page, 'Personal API key found in request Authorization header is invalid.');
    assert.equal(await page.$(aria('Sections', 'navigation')), null, 'no navigation after a wrong key');
    assert.equal(await page.evaluate('sessionStorage.length'), 0, 'a wrong key is not kept');
    await screenshot(page, 'sign-in-error');
  });

  it('signs in and lists the newest persons with their names as links, the exact count and pages', async () => {
    await signIn(page, harness.tenant.key);
    await waitForText(page, '33 persons');
    const first = await mainText(page);
    // Newest first: the visitors of February come before Ada, Bob and Carol of January.
    assert.match(first, /Page 1 of 2/);
    assert.ok(!first.includes('ada@example.com'), 'Ada is on the second page');
    await click(page, 'Next page');
    await waitForText(page, 'Page 2 of 2');
    await page.waitForSelector(aria('ada@example.com', 'link'));
    const second = await mainText(page);
    assert.match(second, /carol@example\.com/);
    assert.match(second, /anon-ada/, 'distinct ids are listed');
    assert.match(second, /2024-01-01 09:0\d:00 UTC/, 'the creation time is shown');
    // The key lives in sessionStorage only, and never in the address.
    assert.equal(await page.evaluate('sessionStorage.getItem("herd.personal_api_key")'), harness.tenant.key);
    assert.equal(await page.evaluate('localStorage.length'), 0);
    assert.ok(!watched.requests.some((url) => url.includes(harness.tenant.key)), 'no request URL carries the key');
    await screenshot(page, 'persons');
  });

  it('searches persons', async () => {
    await fill(page, 'Search persons', 'ada');
    await click(page, 'Search');
    await waitForText(page, '1 person');
    const shown = await mainText(page);
    assert.match(shown, /ada@example\.com/);
    assert.ok(!shown.includes('bob@example.com'));
  });

  it('filters by properties with AND and OR', async () => {
    await fill(page, 'Search persons', '');
    await click(page, 'Add filter');
    await fill(page, 'Filter 1 key', 'plan');
    await fill(page, 'Filter 1 value', 'pro');
    await click(page, 'Search');
    await waitForText(page, '2 persons');
    let shown = await mainText(page);
    assert.match(shown, /ada@example\.com/);
    assert.match(shown, /carol@example\.com/);

    await click(page, 'Add filter');
    await fill(page, 'Filter 2 key', 'age');
    await choose(page, 'Filter 2 operator', 'greater than');
    await fill(page, 'Filter 2 value', '40');
    await click(page, 'Search');
    await waitForText(page, '1 person');
    shown = await mainText(page);
    assert.match(shown, /carol@example\.com/);
    assert.ok(!shown.includes('ada@example.com'), 'AND: Ada is not over 40');

    await choose(page, 'Match', 'any filter (OR)');
    await click(page, 'Search');
    await waitForText(page, '2 persons');
    await screenshot(page, 'persons-filtered');
  });

  it("shows the API's error next to a filter it refuses", async () => {
    await choose(page, 'Filter 2 operator', 'matches regex');
    await fill(page, 'Filter 2 value', '(');
    await click(page, 'Search');
    await waitForText(page, 'Invalid regular expression: (');
    await click(page, 'Remove filter 2');
    await click(page, 'Search');
    await waitForText(page, '2 persons');
  });

  it('downloads a CSV of exactly what is filtered', async () => {
    await click(page, 'Download CSV');
    const file = path.join(harness.downloads, 'persons.csv');
    for (let attempt = 0; attempt < 100 && !fs.existsSync(file); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const csv = fs.readFileSync(file, 'utf8');
    const lines = csv.trim().split(/\r?\n/);
    assert.equal(lines.length, 3, `a header and the two pro persons: ${csv}`);
    assert.match(lines[0], /properties\.plan/);
    assert.ok(csv.includes('ada@example.com') && csv.includes('carol@example.com') && !csv.includes('bob@example.com'));
  });

  it('filters by a cohort', async () => {
    const cohort = await harness.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${harness.tenant.project.id}/cohorts/`,
      headers: harness.tenant.headers,
      payload: { name: 'Early birds', is_static: true, distinct_ids: ['bob', 'carol'] },
    });
    assert.equal(cohort.statusCode, 201);
    await click(page, 'Clear filters');
    await page.reload();
    await page.waitForSelector(aria('In cohort'));
    await choose(page, 'In cohort', 'Early birds');
    await click(page, 'Search');
    await waitForText(page, '2 persons');
    const shown = await mainText(page);
    assert.match(shown, /bob@example\.com/);
    assert.match(shown, /carol@example\.com/);
    await click(page, 'Clear filters');
    await waitForText(page, '33 persons');
  });

  it('opens a person, edits, adds and deletes properties through the API', async () => {
    await fill(page, 'Search persons', 'ada@example.com');
    await click(page, 'Search');
    await click(page, 'ada@example.com', 'link');
    await page.waitForSelector(aria('ada@example.com', 'heading'));
    await waitForLoaded(page);

    await click(page, 'Edit plan');
    await fill(page, 'New value of plan', 'enterprise');
    await click(page, 'Save plan');
    await page.waitForSelector(aria('Edit plan'));
    await waitForText(page, 'enterprise');

    await fill(page, 'New property key', 'team');
    await fill(page, 'New property value', 'core');
    await click(page, 'Add property');
    await page.waitForSelector(aria('Edit team'));

    await click(page, 'Edit age');
    await click(page, 'Delete age');
    await page.waitForSelector(aria('Delete the property age?', 'dialog'));
    await click(page, 'Delete property');
    // The dialog closes once the API has answered (while it is open, the page behind it is inert and
    // out of the accessibility tree: the editor reads as hidden before anything happened), and the
    // row goes, its editor with it.
    await page.waitForSelector(aria('Delete the property age?', 'dialog'), { hidden: true });
    await page.waitForSelector(aria('age', 'rowheader'), { hidden: true });
    assert.equal(await page.$(aria('Editing age')), null);
    assert.equal(await page.$(aria('Edit age')), null);

    const [ada] = (await personsApi('distinct_id=ada')).results;
    assert.equal(ada.properties.plan, 'enterprise');
    assert.equal(ada.properties.team, 'core');
    assert.equal('age' in ada.properties, false);
    // The changes are the person's activity.
    await waitForText(page, 'plan: pro → enterprise');
    await waitForText(page, 'Property deleted');
    await screenshot(page, 'person');
  });

  it('splits a person, keeping the chosen distinct id', async () => {
    await click(page, 'Split this person…');
    await choose(page, 'Distinct ID to keep', 'ada');
    await click(page, 'Split person');
    await waitForText(page, 'Split: every other distinct id is now a person of its own.');
    const [ada] = (await personsApi('distinct_id=ada')).results;
    const [anon] = (await personsApi('distinct_id=anon-ada')).results;
    assert.deepEqual(ada.distinct_ids, ['ada']);
    assert.notEqual(anon.id, ada.id);
  });

  it('deletes a person with its events and shows the queued deletion', async () => {
    await openPersons();
    await fill(page, 'Search persons', 'bob@example.com');
    await click(page, 'Search');
    await click(page, 'bob@example.com', 'link');
    await page.waitForSelector(aria('bob@example.com', 'heading'));
    await waitForLoaded(page);
    await click(page, 'Delete person');
    await page.locator(aria('Also delete its events')).click();
    await click(page, 'Delete person permanently');
    await waitForText(page, 'The person was deleted. Deleting its events is queued:');
    assert.match(await mainText(page), /Pending/);
    assert.equal((await personsApi('distinct_id=bob')).count, 0);

    await click(page, 'Deletion queue', 'link');
    await waitForText(page, '1 queued deletion');
    const queue = await mainText(page);
    assert.match(queue, /bob/);
    assert.match(queue, /Pending/);
    await screenshot(page, 'deletion-queue');
    const status = await harness.ctx.app.inject({
      url: `/api/projects/${harness.tenant.project.id}/persons/deletion_status/?status=pending`,
      headers: bearer(harness.tenant.key),
    });
    assert.equal(status.json().count, 1);
  });

  it('ran no script and raised no error on the way', () => {
    assert.deepEqual(watched.problems, []);
  });
});
