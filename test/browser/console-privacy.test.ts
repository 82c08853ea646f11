// The console in Chromium: a person's "Export data" and "Delete events", Cancel (with its
// confirmation) in the deletion queue for both lists, and the project's retention on Settings.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
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
  waitForLoaded,
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

async function apiGet(url: string) {
  const response = await harness.ctx.app.inject({ url, headers: harness.tenant.headers });
  return response.json();
}

/** Waits until no element is named `name` any more (a cancelled task's button is gone). */
async function waitForGone(name: string) {
  await page.waitForFunction(`!document.querySelector(${JSON.stringify(`[aria-label="${name}"]`)})`);
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, [
    {
      event: '$identify',
      distinct_id: 'grace',
      timestamp: '2024-03-01T09:00:00Z',
      properties: { $set: { email: 'grace@example.com' } },
    },
    { event: 'clicked', distinct_id: 'grace', timestamp: '2024-03-02T09:00:00Z', properties: { button: 'buy' } },
    // Another person's event must not be in Grace's export.
    { event: 'clicked', distinct_id: 'henry', timestamp: '2024-03-02T10:00:00Z', properties: {} },
  ]);
  watched = await openSignedIn(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: privacy requests', () => {
  let personUuid = '';

  it('exports a person’s data as a JSON file from the person page', async () => {
    await waitForLoaded(page);
    await click(page, 'grace@example.com', 'link');
    await page.waitForSelector(aria('Export data', 'button'));
    await waitForLoaded(page);
    const person = (await apiGet(`/api/projects/${harness.tenant.project.id}/persons/?distinct_id=grace`)).results[0];
    personUuid = person.uuid;
    await click(page, 'Export data');
    const file = path.join(harness.downloads, `person-${personUuid}.json`);
    for (let attempt = 0; attempt < 100 && !fs.existsSync(file); attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const exported = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(exported.person.uuid, personUuid);
    assert.deepEqual(
      exported.events.map((event: { event: string }) => event.event),
      ['$identify', 'clicked'],
    );
    assert.ok(!JSON.stringify(exported).includes('henry'));
  });

  it('queues the deletion of the person’s events after a confirmation, then cancels it in the queue', async () => {
    await click(page, 'Delete events');
    await page.waitForSelector(aria('Confirm deleting events', 'group'));
    await click(page, 'Delete events, keep person');
    await waitForText(page, 'Deleting this person’s events is queued.');
    const queue = await apiGet(
      `/api/projects/${harness.tenant.project.id}/persons/deletion_status/?person_uuid=${personUuid}`,
    );
    const task = queue.results[0];
    assert.equal(task.kind, 'person_events');

    await click(page, 'Deletion queue', 'link');
    await page.waitForSelector(aria(`Cancel deletion ${task.id}`, 'button'));
    await waitForLoaded(page);
    await click(page, `Cancel deletion ${task.id}`);
    await page.waitForSelector(aria(`Confirm cancelling deletion ${task.id}`, 'group'));
    await click(page, 'Yes, cancel it');
    // The confirmation stands in for the Cancel button until the reloaded list has no Cancel for it.
    await waitForGone(`Confirm cancelling deletion ${task.id}`);
    const after = await apiGet(
      `/api/projects/${harness.tenant.project.id}/persons/deletion_status/?person_uuid=${personUuid}`,
    );
    assert.equal(after.results[0].status, 'cancelled');
  });

  it('cancels an event deletion by time range, and keeps it when the confirmation is declined', async () => {
    const created = await harness.ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${harness.tenant.project.id}/event_deletions/`,
      headers: harness.tenant.headers,
      payload: { after: '2024-03-01T00:00:00Z', before: '2024-03-02T00:00:00Z', event: 'clicked' },
    });
    assert.equal(created.statusCode, 201);
    const id = created.json().id;
    await page.reload();
    await page.waitForSelector(aria(`Cancel deletion ${id}`, 'button'));
    await waitForLoaded(page);
    await click(page, `Cancel deletion ${id}`);
    await click(page, 'Keep it');
    await page.waitForSelector(aria(`Cancel deletion ${id}`, 'button'));
    const url = `/api/projects/${harness.tenant.project.id}/event_deletions/`;
    assert.equal((await apiGet(url)).results[0].status, 'pending');
    await click(page, `Cancel deletion ${id}`);
    await click(page, 'Yes, cancel it');
    await waitForGone(`Confirm cancelling deletion ${id}`);
    assert.equal((await apiGet(url)).results[0].status, 'cancelled');
    assert.equal(watched.problems.length, 0, watched.problems.join('\n'));
  });

  it('sets the project’s retention on the settings screen, with the API’s message for a bad value', async () => {
    await click(page, 'Settings', 'link');
    await page.waitForSelector(aria('Keep events for (days)'));
    await waitForText(page, 'Events are kept forever.');
    await fill(page, 'Keep events for (days)', '0');
    await click(page, 'Save retention');
    await waitForText(page, 'Must be null or a whole number of days from 1 to 36500.');
    await fill(page, 'Keep events for (days)', '400');
    await click(page, 'Save retention');
    // Shortening the period deletes events: asked first, and nothing is saved until confirmed.
    await page.waitForSelector(aria('Keep events for 400 days only?', 'dialog'));
    assert.equal((await apiGet(`/api/projects/${harness.tenant.project.id}/`)).data_retention_days, null);
    await click(page, 'Shorten retention');
    await waitForText(page, 'Retention saved.');
    // The refusal of 0 went with the success.
    assert.ok(!(await mainText(page)).includes('Must be null or a whole number'));
    await waitForText(page, 'Events older than 400 days are deleted');
    const project = await apiGet(`/api/projects/${harness.tenant.project.id}/`);
    assert.equal(project.data_retention_days, 400);
    await fill(page, 'Keep events for (days)', '');
    await click(page, 'Save retention');
    await waitForText(page, 'Events are kept forever.');
    assert.equal((await apiGet(`/api/projects/${harness.tenant.project.id}/`)).data_retention_days, null);
  });
});
