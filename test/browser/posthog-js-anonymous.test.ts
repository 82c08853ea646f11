// posthog-js with every option at its default (so `person_profiles: 'identified_only'` and request
// batching) in headless Chromium, on pages of another origin: a visitor views two pages as an
// anonymous visitor (events sent without a person), identifies, then signs up. Through herd's API
// the anonymous pageviews count for the identified person: the trends persons of $pageview list
// them, and the funnel $pageview → signed up converts them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { JSHandle, Page } from 'puppeteer-core';
import {
  launchChromium,
  newVisitorPage,
  servePages,
  summarize,
  watchHerdTraffic,
  type CapturedEvent,
  type HerdTraffic,
  type LaunchedBrowser,
  type PageServer,
} from '../helpers/browser.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

interface PosthogInPage {
  __loaded?: boolean;
  get_distinct_id(): string;
  identify(id: string, set?: object): void;
  capture(event: string, properties?: object): void;
}
type PageGlobals = { posthog?: PosthogInPage };
interface Person {
  uuid: string;
  distinct_ids: string[];
}

let ctx: TestContext;
let tenant: Tenant;
let herd: string;
let chromium: LaunchedBrowser;
let pages: PageServer;

const moduleBundle = path.join(
  path.dirname(createRequire(import.meta.url).resolve('posthog-js/package.json')),
  'dist',
  'module.js',
);

/** A page of the site: posthog-js from the site's own bundle, given only the token and api_host. */
const sitePage = (
  title: string,
  token: string,
) => `<!doctype html><html><head><title>${title}</title><script type="module">
import posthog from '/assets/posthog-js.js';
globalThis.posthog = posthog;
posthog.init(${JSON.stringify(token)}, { api_host: ${JSON.stringify(herd)} });
</script></head><body><h1>${title}</h1></body></html>`;

before(async () => {
  chromium = await launchChromium();
  ctx = await setupTestApp({ config: { rateLimit: false } });
  tenant = await makeTenant(ctx.deps.db);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  herd = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  const token = tenant.project.api_token;
  pages = await servePages({
    '/landing.html': { body: sitePage('Landing', token), type: 'text/html; charset=utf-8' },
    '/pricing.html': { body: sitePage('Pricing', token), type: 'text/html; charset=utf-8' },
    '/assets/posthog-js.js': { body: fs.readFileSync(moduleBundle), type: 'text/javascript; charset=utf-8' },
  });
});

after(async () => {
  await chromium?.close();
  await pages?.close();
  await ctx?.close();
});

async function api(url: string) {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/api/projects/${tenant.project.id}${url}`,
    headers: tenant.headers,
  });
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  return response.json();
}

const personsOf = async (distinctId: string): Promise<Person[]> =>
  (await api(`/persons/?distinct_id=${encodeURIComponent(distinctId)}`)).results;

/** The uuids of the people of an analytical persons view. */
async function viewPeople(view: string, params: Record<string, unknown>): Promise<string[]> {
  const query = new URLSearchParams(
    Object.entries(params).map(([key, value]): [string, string] => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  const body = await api(`/persons/${view}/?${query}`);
  return body.results[0].people.map((person: Person) => person.uuid);
}

async function openPage(page: Page, pagePath: string): Promise<JSHandle<PosthogInPage>> {
  await page.goto(`${pages.origin}${pagePath}`, { waitUntil: 'load' });
  await page.waitForFunction(() => (globalThis as PageGlobals).posthog?.__loaded === true, { timeout: 15_000 });
  return (await page.evaluateHandle(() => (globalThis as PageGlobals).posthog)) as JSHandle<PosthogInPage>;
}

const day = (timestamp: Date) => timestamp.toISOString().slice(0, 10);

test('default posthog-js: anonymous pageviews, identify, signed up → the person is in trends of $pageview and converts in the funnel', async () => {
  const page = await newVisitorPage(chromium.browser);
  const traffic: HerdTraffic = watchHerdTraffic(page, herd);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));

  let posthog = await openPage(page, '/landing.html');
  const anonymousId = await posthog.evaluate((sdk) => sdk.get_distinct_id());
  const isPageview = (pathname: string) => (event: CapturedEvent) =>
    event.event === '$pageview' &&
    event.properties?.distinct_id === anonymousId &&
    String(event.properties?.$current_url).endsWith(pathname);
  const landing = await traffic.waitForEvent(isPageview('/landing.html'));
  const landingView = landing.events.find(isPageview('/landing.html')) as CapturedEvent & { timestamp?: string };
  // The default: the visitor's events carry no person until identify.
  assert.equal(
    landingView.properties?.$process_person_profile,
    false,
    'posthog-js sends the anonymous pageview personless by default',
  );

  posthog = await openPage(page, '/pricing.html');
  assert.equal(
    await posthog.evaluate((sdk) => sdk.get_distinct_id()),
    anonymousId,
    'the same anonymous visitor on the next page',
  );
  await traffic.waitForEvent(isPageview('/pricing.html'));
  assert.deepEqual(await personsOf(anonymousId), [], 'no person before identify');

  await posthog.evaluate((sdk) => sdk.identify('anon-then-user', { email: 'signed-up@example.com' }));
  await traffic.waitForEvent(
    (event) => event.event === '$identify' && event.properties?.distinct_id === 'anon-then-user',
  );
  await posthog.evaluate((sdk) => sdk.capture('signed up'));
  await traffic.waitForEvent(
    (event) => event.event === 'signed up' && event.properties?.distinct_id === 'anon-then-user',
  );

  const [person] = await personsOf('anon-then-user');
  assert.ok(person, 'the identified person');
  assert.deepEqual([...person.distinct_ids].sort(), [anonymousId, 'anon-then-user'].sort());

  const viewed = new Date(landingView.timestamp ?? Date.now());
  const trends = await viewPeople('trends', {
    entity_id: '$pageview',
    entity_type: 'events',
    date_from: day(viewed),
    date_to: day(viewed),
  });
  assert.deepEqual(trends, [person.uuid], 'the trends persons of $pageview list the visitor, once');
  const nextDay = new Date(viewed.getTime() + 86_400_000);
  const previousDay = new Date(viewed.getTime() - 86_400_000);
  const steps = [
    { id: '$pageview', type: 'events', order: 0 },
    { id: 'signed up', type: 'events', order: 1 },
  ];
  const converted = await viewPeople('funnel', {
    events: steps,
    funnel_step: '2',
    date_from: day(previousDay),
    date_to: day(nextDay),
  });
  assert.deepEqual(converted, [person.uuid], 'the funnel $pageview → signed up converts the visitor');
  const droppedOff = await viewPeople('funnel', {
    events: steps,
    funnel_step: '-2',
    date_from: day(previousDay),
    date_to: day(nextDay),
  });
  assert.deepEqual(droppedOff, [], 'nobody dropped off: the anonymous pageview and the sign-up are one person');

  // Every request the SDK made to herd was answered 2xx, and the page logged no error.
  await traffic.settled();
  const summary = summarize(traffic.requests);
  for (const request of traffic.requests) {
    assert.ok(
      request.status !== null && request.status >= 200 && request.status < 300,
      `every request to herd answered 2xx: ${summary.join('; ')}`,
    );
  }
  assert.deepEqual(consoleErrors, [], 'no error in the page console');
  traffic.stop();
  console.log(`default posthog-js asked herd for:\n  ${summary.join('\n  ')}`);
  await page.browserContext().close();
});
