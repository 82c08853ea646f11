// The console in Chromium: a posthog-js person's page (search, "Hide empty values", a compact
// table, deleting after a confirmation), a cohort's page (definition, members, edit, delete), and
// the activity naming persons by name or e-mail, a deleted one said to be deleted.
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

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

// The campaign parameters posthog-js records, each once as `$initial_…` and once as it is now: on a
// visit without a campaign every one of them is null.
const CAMPAIGN = [
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'gclid',
  'gad_source',
  'gclsrc',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'twclid',
  'li_fat_id',
  'mc_cid',
  'igshid',
  'ttclid',
  'rdt_cid',
  'qclid',
];
const EMPTY = Object.fromEntries(CAMPAIGN.flatMap((key) => [[key, null] as const, [`$initial_${key}`, null] as const]));
const FILLED: Record<string, unknown> = {
  email: 'maya@example.com',
  name: 'Maya Lin',
  plan: 'pro',
  company: 'Acme',
  $browser: 'Firefox',
  $browser_version: 131,
  $os: 'Mac OS X',
  $os_version: '14.6.1',
  $device_type: 'Desktop',
  $current_url: 'https://app.example.com/projects/42/settings?tab=billing',
  $pathname: '/projects/42/settings',
  $host: 'app.example.com',
  $referrer: 'https://www.example.com/pricing',
  $referring_domain: 'www.example.com',
  $screen_height: 1117,
  $screen_width: 1728,
  $viewport_height: 988,
  $viewport_width: 1728,
  $lib: 'web',
  $lib_version: '1.180.0',
  $geoip_city_name: 'Lisbon',
  $geoip_country_code: 'PT',
  $geoip_country_name: 'Portugal',
  $geoip_time_zone: 'Europe/Lisbon',
  $initial_browser: 'Firefox',
  $initial_browser_version: 131,
  $initial_os: 'Mac OS X',
  $initial_os_version: '14.6.1',
  $initial_device_type: 'Desktop',
  $initial_current_url: 'https://www.example.com/pricing',
  $initial_pathname: '/pricing',
  $initial_host: 'www.example.com',
  $initial_referrer: '$direct',
  $initial_referring_domain: '$direct',
  $initial_geoip_city_name: 'Lisbon',
  $initial_geoip_country_code: 'PT',
  $initial_geoip_country_name: 'Portugal',
  $initial_geoip_time_zone: 'Europe/Lisbon',
  $creator_event_uuid: '0192f4b2-7c1e-7d3a-9e4f-2b8c6a1d0e5f',
  $feature_flags_seen: [],
};
const FILLED_COUNT = Object.keys(FILLED).length - 1; // `[]` is empty too
const ALL_COUNT = Object.keys(FILLED).length + Object.keys(EMPTY).length;

async function apiGet(url: string) {
  const response = await harness.ctx.app.inject({ url, headers: harness.tenant.headers });
  return response.json();
}

const projectPath = (rest: string) => `/api/projects/${harness.tenant.project.id}/${rest}`;

async function personByDistinctId(distinctId: string) {
  const page = (await apiGet(projectPath(`persons/?distinct_id=${distinctId}`))) as {
    results: Array<{ id: number; properties: Record<string, unknown> }>;
  };
  return page.results[0];
}

/** Opens a person's page by its route, as a link from elsewhere would. */
async function openPerson(id: number) {
  await page.evaluate(`location.hash = ${JSON.stringify(`#/p/${harness.tenant.project.id}/persons/${id}`)}`);
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, [
    {
      event: '$identify',
      distinct_id: 'maya',
      properties: { $anon_distinct_id: '01930a6e-5f7c-7b2d-8e9a-3c4d5e6f7a8b', $set: { ...FILLED, ...EMPTY } },
    },
    { event: 'signed up', distinct_id: 'omar', properties: { $set: { email: 'omar@example.com', plan: 'pro' } } },
    { event: 'signed up', distinct_id: 'priya', properties: { $set: { email: 'priya@example.com', plan: 'free' } } },
    { event: 'signed up', distinct_id: 'quinn', properties: { $set: { email: 'quinn@example.com', plan: 'free' } } },
  ]);
  watched = await openSignedIn(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe("console: a person's page, a cohort's page, activity by name", () => {
  it('shows a posthog-js person in a compact table, empty values hidden and counted', async () => {
    const maya = await personByDistinctId('maya');
    assert.equal(Object.keys(maya.properties).length, ALL_COUNT, 'every property was stored');
    await openPerson(maya.id);
    await page.waitForSelector(aria('maya@example.com', 'heading'));
    await waitForLoaded(page);
    const hidden = ALL_COUNT - FILLED_COUNT;
    await waitForText(page, `${FILLED_COUNT} of ${ALL_COUNT} properties shown · ${hidden} empty hidden`);
    assert.equal(await page.$(aria('Edit $initial_utm_source')), null, 'a null property is hidden');
    await page.waitForSelector(aria('Edit $geoip_city_name'));
    assert.equal((await page.$$('table.properties tbody tr')).length, FILLED_COUNT);
    await screenshot(page, 'person-posthog-js');

    await page.locator(aria('Hide empty values', 'checkbox')).click();
    await waitForText(page, `${ALL_COUNT} properties`);
    await page.waitForSelector(aria('Edit $initial_utm_source'));
    assert.equal((await page.$$('table.properties tbody tr')).length, ALL_COUNT);
    await page.locator(aria('Hide empty values', 'checkbox')).click();
    await page.waitForSelector(aria('Edit $initial_utm_source'), { hidden: true });
  });

  it('searches the properties by key and by value', async () => {
    await fill(page, 'Search properties', 'browser');
    await waitForText(page, `4 of ${ALL_COUNT} properties shown`);
    const keys = await page.$$eval('table.properties tbody th', (cells) =>
      cells.map((cell) => (cell as unknown as { textContent: string }).textContent),
    );
    assert.deepEqual(keys, ['$browser', '$browser_version', '$initial_browser', '$initial_browser_version']);

    await fill(page, 'Search properties', 'lisbon');
    await waitForText(page, `4 of ${ALL_COUNT} properties shown`);
    assert.match(await mainText(page), /\$geoip_time_zone\s+Europe\/Lisbon/);

    await fill(page, 'Search properties', 'no such thing');
    await waitForText(page, 'No property matches “no such thing”.');
    await fill(page, 'Search properties', '');
    await waitForText(page, `${FILLED_COUNT} of ${ALL_COUNT} properties shown`);
  });

  it('deletes a property only once confirmed', async () => {
    await click(page, 'Edit company');
    await click(page, 'Delete company');
    await page.waitForSelector(aria('Delete the property company?', 'dialog'));
    assert.match(await mainText(page), /The person loses company \(now Acme\)/);
    await click(page, 'Keep property');
    await page.waitForSelector(aria('Delete the property company?', 'dialog'), { hidden: true });
    assert.equal((await personByDistinctId('maya')).properties.company, 'Acme');

    await click(page, 'Delete company');
    await click(page, 'Delete property');
    // The row goes (its editor with it) once the API has answered.
    await waitForText(page, `${FILLED_COUNT - 1} of ${ALL_COUNT - 1} properties shown`);
    assert.equal(await page.$(aria('Editing company')), null);
    assert.equal('company' in (await personByDistinctId('maya')).properties, false);
  });

  it("opens a dynamic cohort's page: its definition in words, its members, edited and deleted", async () => {
    const created = await harness.ctx.app.inject({
      method: 'POST',
      url: projectPath('cohorts/'),
      headers: harness.tenant.headers,
      payload: {
        name: 'Paying',
        filters: {
          properties: {
            type: 'AND',
            values: [{ type: 'AND', values: [{ key: 'plan', operator: 'exact', value: 'pro', type: 'person' }] }],
          },
        },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    await click(page, 'Cohorts', 'link');
    await click(page, 'Paying', 'link');
    await page.waitForSelector(aria('Cohort: Paying', 'heading'));
    await waitForLoaded(page);
    await waitForText(page, 'Persons whose properties match: plan equals “pro”.');
    await waitForText(page, '2 persons in this cohort');
    await page.waitForSelector(aria('maya@example.com', 'link'));
    await page.waitForSelector(aria('omar@example.com', 'link'));
    await screenshot(page, 'cohort');

    await fill(page, 'Name', 'Free plan');
    await fill(page, 'Description', 'Everyone not paying yet');
    await fill(page, 'Filter 1 value', 'free');
    await click(page, 'Save cohort');
    await waitForText(page, 'Cohort saved.');
    await page.waitForSelector(aria('Cohort: Free plan', 'heading'));
    await waitForText(page, 'Persons whose properties match: plan equals “free”.');
    await page.waitForSelector(aria('priya@example.com', 'link'));
    await page.waitForSelector(aria('quinn@example.com', 'link'));
    assert.ok(!(await mainText(page)).includes('maya@example.com'));
    const cohort = (await apiGet(projectPath(`cohorts/${created.json().id}/`))) as {
      name: string;
      description: string;
      count: number;
    };
    assert.deepEqual([cohort.name, cohort.description, cohort.count], ['Free plan', 'Everyone not paying yet', 2]);

    // A refused name: the API's words under the field, gone once a save goes through.
    await fill(page, 'Name', '');
    await click(page, 'Save cohort');
    await page.waitForSelector('#edit-cohort-name-error');
    assert.ok(!(await mainText(page)).includes('field:'));
    await fill(page, 'Name', 'Free');
    await click(page, 'Save cohort');
    await page.waitForSelector(aria('Cohort: Free', 'heading'));
    assert.equal(await page.$('#edit-cohort-name-error'), null);

    await click(page, 'Delete cohort Free');
    await click(page, 'Delete cohort');
    await page.waitForSelector(aria('Cohorts', 'heading'));
    await waitForText(page, 'No cohorts yet.');
  });

  it("opens a static cohort's page from a person's cohorts", async () => {
    const created = await harness.ctx.app.inject({
      method: 'POST',
      url: projectPath('cohorts/'),
      headers: harness.tenant.headers,
      payload: { name: 'Interviewed', is_static: true, distinct_ids: ['priya', 'omar'] },
    });
    assert.equal(created.statusCode, 201);
    const priya = await personByDistinctId('priya');
    await openPerson(priya.id);
    await page.waitForSelector(aria('priya@example.com', 'heading'));
    await click(page, 'Interviewed', 'link');
    await page.waitForSelector(aria('Cohort: Interviewed', 'heading'));
    await waitForText(page, 'The 2 persons listed when it was made');
    await page.waitForSelector(aria('omar@example.com', 'link'));
    await page.waitForSelector(aria('priya@example.com', 'link'));
  });

  it('names persons in the activity by name or e-mail, and says when one was deleted', async () => {
    const omar = await personByDistinctId('omar');
    const quinn = await personByDistinctId('quinn');
    const patched = await harness.ctx.app.inject({
      method: 'PATCH',
      url: projectPath(`persons/${omar.id}/`),
      headers: harness.tenant.headers,
      payload: { properties: { plan: 'enterprise' } },
    });
    assert.equal(patched.statusCode, 200);
    const deleted = await harness.ctx.app.inject({
      method: 'DELETE',
      url: projectPath(`persons/${quinn.id}/`),
      headers: harness.tenant.headers,
    });
    assert.equal(deleted.statusCode, 204);

    await click(page, 'Activity', 'link');
    await waitForText(page, 'plan: pro → enterprise');
    await page.waitForSelector(aria('omar@example.com', 'link'));
    await page.waitForSelector(aria('maya@example.com', 'link'));
    await page.waitForSelector(aria(`Deleted person ${quinn.id}`, 'link'));
    assert.ok(!/\bPerson \d+\b/.test(await mainText(page)), 'no person is named by its number alone');
    await screenshot(page, 'activity');

    await click(page, `Deleted person ${quinn.id}`, 'link');
    await waitForText(page, `There is no person ${quinn.id} in this project: it was deleted, or the link is wrong.`);
  });

  it('raised no error on the way', () => {
    assert.deepEqual(watched.problems, []);
  });
});
