// posthog-js (the npm package herd pins and serves) in headless Chromium, on pages of another
// origin with api_host = herd: loaded by the HTML snippet from herd's /static/array.js, and as the
// npm bundle a site would ship. Persons are checked through the persons API, and every request
// the SDK makes to herd must be answered 2xx.
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
  posthogSnippet,
  servePages,
  summarize,
  watchHerdTraffic,
  type HerdTraffic,
  type LaunchedBrowser,
  type PageServer,
} from '../helpers/browser.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

interface ApiPerson {
  id: number;
  uuid: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
}

/** The part of the SDK the tests call, as the page holds it in `window.posthog`. */
interface PosthogInPage {
  __loaded?: boolean;
  get_distinct_id(): string;
  identify(id: string, set?: object, setOnce?: object): void;
  alias(alias: string): void;
  reset(): void;
  capture(event: string, properties?: object): void;
}
type PageGlobals = { posthog?: PosthogInPage };

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

// Each capture leaves at once, none waits for a batch timer: the test waits for herd's answers.
const initOptions = (personProfiles: 'always' | 'identified_only') => ({
  api_host: herd,
  person_profiles: personProfiles,
  request_batching: false,
});

function snippetPage(token: string): string {
  return `<!doctype html><html><head><title>Snippet</title><script>
${posthogSnippet(herd)}
posthog.init(${JSON.stringify(token)}, ${JSON.stringify(initOptions('always'))});
</script></head><body><h1>Landing</h1></body></html>`;
}

function bundlePage(token: string): string {
  return `<!doctype html><html><head><title>Bundle</title><script type="module">
import posthog from '/assets/posthog-js.js';
globalThis.posthog = posthog;
posthog.init(${JSON.stringify(token)}, ${JSON.stringify(initOptions('identified_only'))});
</script></head><body><h1>App</h1></body></html>`;
}

before(async () => {
  chromium = await launchChromium();
  ctx = await setupTestApp();
  tenant = await makeTenant(ctx.deps.db);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  herd = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
  const token = tenant.project.api_token;
  pages = await servePages({
    '/snippet.html': { body: snippetPage(token), type: 'text/html; charset=utf-8' },
    '/bundle.html': { body: bundlePage(token), type: 'text/html; charset=utf-8' },
    '/assets/posthog-js.js': { body: fs.readFileSync(moduleBundle), type: 'text/javascript; charset=utf-8' },
  });
});

after(async () => {
  await chromium?.close();
  await pages?.close();
  await ctx?.close();
});

async function personsOf(distinctId: string): Promise<ApiPerson[]> {
  const response = await ctx.app.inject({
    method: 'GET',
    url: `/api/projects/${tenant.project.id}/persons/?distinct_id=${encodeURIComponent(distinctId)}`,
    headers: tenant.headers,
  });
  assert.equal(response.statusCode, 200, response.body);
  return response.json().results;
}

async function onlyPersonOf(distinctId: string): Promise<ApiPerson> {
  const found = await personsOf(distinctId);
  assert.equal(found.length, 1, `one person for ${distinctId}, found ${found.length}`);
  return found[0];
}

interface Visitor {
  page: Page;
  posthog: JSHandle<PosthogInPage>;
  traffic: HerdTraffic;
  consoleErrors: string[];
}

async function openVisitor(pagePath: string): Promise<Visitor> {
  const page = await newVisitorPage(chromium.browser);
  const traffic = watchHerdTraffic(page, herd);
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(String(error)));
  await page.goto(`${pages.origin}${pagePath}`, { waitUntil: 'load' });
  await page.waitForFunction(() => (globalThis as PageGlobals).posthog?.__loaded === true, { timeout: 15_000 });
  const posthog = (await page.evaluateHandle(() => (globalThis as PageGlobals).posthog)) as JSHandle<PosthogInPage>;
  return { page, posthog, traffic, consoleErrors };
}

/** Everything the page asked of herd is answered, and answered 2xx; nothing went wrong in the page. */
async function assertCleanTraffic(traffic: HerdTraffic, consoleErrors: string[]) {
  await traffic.settled();
  const summary = summarize(traffic.requests);
  assert.ok(traffic.requests.length > 0);
  for (const request of traffic.requests) {
    assert.ok(
      request.status !== null && request.status >= 200 && request.status < 300,
      `every request to herd answered 2xx: ${summary.join('; ')}`,
    );
  }
  assert.deepEqual(consoleErrors, [], 'no error in the page console');
  return summary;
}

test('snippet: array.js from herd; anonymous person, identify with $set/$set_once, alias, reset', async () => {
  const { page, posthog, traffic, consoleErrors } = await openVisitor('/snippet.html');
  const anonymousId = await posthog.evaluate((sdk) => sdk.get_distinct_id());
  await traffic.waitForEvent((event) => event.event === '$pageview' && event.properties?.distinct_id === anonymousId);

  const visitor = await onlyPersonOf(anonymousId);
  assert.deepEqual(visitor.distinct_ids, [anonymousId]);

  await posthog.evaluate((sdk) => sdk.identify('snippet-user', { plan: 'pro' }, { first_seen: 'landing' }));
  await traffic.waitForEvent(
    (event) => event.event === '$identify' && event.properties?.distinct_id === 'snippet-user',
  );
  const identified = await onlyPersonOf('snippet-user');
  assert.equal(identified.uuid, visitor.uuid, 'the anonymous visitor became the identified person');
  assert.deepEqual([...identified.distinct_ids].sort(), [anonymousId, 'snippet-user'].sort());
  assert.equal(identified.properties.plan, 'pro');
  assert.equal(identified.properties.first_seen, 'landing');

  await posthog.evaluate((sdk) => sdk.alias('snippet-alias'));
  await traffic.waitForEvent((event) => event.event === '$create_alias' && event.properties?.alias === 'snippet-alias');
  assert.equal((await onlyPersonOf('snippet-alias')).uuid, visitor.uuid);

  await posthog.evaluate((sdk) => {
    sdk.reset();
    sdk.capture('after reset');
  });
  const newId = await posthog.evaluate((sdk) => sdk.get_distinct_id());
  assert.ok(![anonymousId, 'snippet-user', 'snippet-alias'].includes(newId), 'reset starts a new anonymous id');
  await traffic.waitForEvent((event) => event.event === 'after reset' && event.properties?.distinct_id === newId);
  const stranger = await onlyPersonOf(newId);
  assert.notEqual(stranger.uuid, visitor.uuid, 'after reset the visitor is someone new');
  assert.deepEqual(stranger.distinct_ids, [newId]);
  assert.deepEqual(
    [...(await onlyPersonOf('snippet-user')).distinct_ids].sort(),
    [anonymousId, 'snippet-alias', 'snippet-user'].sort(),
  );

  const summary = await assertCleanTraffic(traffic, consoleErrors);
  const paths = traffic.requests.map((request) => new URL(request.url).pathname);
  assert.ok(paths.includes('/static/array.js'), `the snippet loaded array.js from herd: ${summary.join('; ')}`);
  assert.ok(
    paths.includes(`/array/${tenant.project.api_token}/config.js`),
    `the SDK loaded its remote config: ${summary.join('; ')}`,
  );
  traffic.stop();
  console.log(`posthog-js via the snippet asked herd for:\n  ${summary.join('\n  ')}`);
  await page.browserContext().close();
});

test('npm bundle: identified_only keeps the anonymous visitor personless until identify, then one person', async () => {
  const { page, posthog, traffic, consoleErrors } = await openVisitor('/bundle.html');
  const anonymousId = await posthog.evaluate((sdk) => sdk.get_distinct_id());
  await traffic.waitForEvent((event) => event.event === '$pageview' && event.properties?.distinct_id === anonymousId);
  assert.deepEqual(await personsOf(anonymousId), [], 'no person before identify');

  await posthog.evaluate((sdk) => sdk.identify('bundle-user', { email: 'bundle@example.com' }));
  await traffic.waitForEvent((event) => event.event === '$identify' && event.properties?.distinct_id === 'bundle-user');
  const person = await onlyPersonOf('bundle-user');
  assert.deepEqual([...person.distinct_ids].sort(), [anonymousId, 'bundle-user'].sort());
  assert.equal(person.properties.email, 'bundle@example.com');

  const summary = await assertCleanTraffic(traffic, consoleErrors);
  traffic.stop();
  console.log(`posthog-js from npm asked herd for:\n  ${summary.join('\n  ')}`);
  await page.browserContext().close();
});
