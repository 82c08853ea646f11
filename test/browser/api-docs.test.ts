// The API reference page (/api/schema/docs/) in Chromium: it renders the document's explanations
// (what an operation does, its scope and who may call it, the trends date_from caveat, the
// property-filter example, the named answer) and a call made from it with a key works.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { launchChromium, type LaunchedBrowser } from '../helpers/browser.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

let ctx: TestContext;
let tenant: Tenant;
let chromium: LaunchedBrowser;
let page: Page;
const problems: string[] = [];

/** The little of the page's DOM these checks read (the project compiles without the DOM library). */
interface DomNode {
  textContent: string | null;
  innerText: string;
  querySelector(selector: string): DomNode | null;
}
interface PageGlobals {
  document: {
    body: DomNode;
    querySelector(selector: string): DomNode | null;
    querySelectorAll(selector: string): Iterable<DomNode>;
  };
}

const text = () => page.evaluate(() => (globalThis as unknown as PageGlobals).document.body.innerText);

async function waitForText(wanted: string) {
  await page.waitForFunction(
    (needle) => (globalThis as unknown as PageGlobals).document.body.innerText.includes(needle),
    { timeout: 60_000 },
    wanted,
  );
}

/** Opens an operation by its summary, as a reader clicks its row. */
async function openOperation(summary: string) {
  await page.locator(`button ::-p-text(${summary})`).click();
  await page.waitForFunction(
    (name) =>
      [
        ...(globalThis as unknown as PageGlobals).document.querySelectorAll(
          '.opblock.is-open .opblock-summary-description',
        ),
      ].some((node) => node.textContent === name),
    { timeout: 60_000 },
    summary,
  );
}

/** The text of the open operation whose summary this is. */
function operationText(summary: string) {
  return page.evaluate((name) => {
    const blocks = (globalThis as unknown as PageGlobals).document.querySelectorAll('.opblock.is-open');
    return (
      [...blocks].find((node) => node.querySelector('.opblock-summary-description')?.textContent === name)?.innerText ??
      ''
    );
  }, summary);
}

before(async () => {
  ctx = await setupTestApp();
  tenant = await makeTenant(ctx.deps.db);
  const captured = await ctx.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: {
      api_key: tenant.project.api_token,
      batch: [{ event: 'signed up', distinct_id: 'ada', properties: { $set: { email: 'ada@example.com' } } }],
    },
  });
  assert.equal(captured.statusCode, 200, captured.body);
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = ctx.app.server.address() as AddressInfo;
  chromium = await launchChromium();
  page = await chromium.browser.newPage();
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  // The machine running the suite may be loaded: a minute for each step rather than puppeteer's 30 s.
  page.setDefaultTimeout(60_000);
  await page.goto(`http://127.0.0.1:${port}/api/schema/docs/`, { waitUntil: 'load' });
  await waitForText('List persons');
});

after(async () => {
  await chromium?.close();
  await ctx?.close();
});

describe('the API reference page', () => {
  it('introduces the API and lists the operations by resource', async () => {
    const page = await text();
    assert.match(page, /Authorization: Bearer phx_…/);
    for (const tag of [
      'organizations',
      'members',
      'roles',
      'projects',
      'personal_api_keys',
      'persons',
      'analytics',
      'insights',
      'cohorts',
      'capture',
      'sdk',
    ]) {
      assert.match(page, new RegExp(`^${tag}$`, 'm'), `the ${tag} group`);
    }
    assert.deepEqual(problems, []);
  });

  it('explains the trends point: date_from names one bucket, with the scope, paging and a filter example', async () => {
    const summary = 'Persons behind a trends point';
    await openOperation(summary);
    const operation = await operationText(summary);
    assert.match(operation, /date_from=-7d with interval=day lists the persons of the single day seven days ago/);
    assert.match(operation, /Scope: person:read/);
    assert.match(operation, /Who: any member of the organization that owns the project/);
    assert.match(operation, /240 requests a minute/);
    assert.match(operation, /count is the size of this page, not a total/);
    assert.match(operation, /Example : \{"type":"AND","values":\[.*"type":"cohort"/);
    assert.match(operation, /Example : \[\{"id":"\$pageview"/, 'the events example');
    assert.match(operation, /A page of the persons/);
    // The answer's schema is named: the Schema tab of the 200 response shows it.
    const block = `.opblock.is-open:has(.opblock-summary-path[data-path="/api/projects/{project_id}/persons/trends/"])`;
    await page.locator(`${block} .responses-wrapper ::-p-text(Schema)`).click();
    await page.waitForFunction(
      (selector) =>
        (globalThis as unknown as PageGlobals).document
          .querySelector(selector)
          ?.innerText.includes('PersonsViewResult'),
      { timeout: 60_000 },
      `${block} .responses-wrapper`,
    );
  });

  it('calls the API from the page with a personal API key', async () => {
    await page.locator('::-p-aria(Authorize[role="button"])').click();
    await page.locator('::-p-aria(auth-bearer-value)').fill(tenant.key);
    await page.locator('::-p-aria(Apply credentials)').click();
    await page.locator('::-p-aria(Close[role="button"])').click();
    const summary = 'List persons';
    await openOperation(summary);
    const block = `.opblock.is-open:has(.opblock-summary-path[data-path="/api/projects/{project_id}/persons/"])`;
    await page.locator(`${block} ::-p-text(Try it out)`).click();
    await page.locator(`${block} input[placeholder="project_id"]`).fill(String(tenant.project.id));
    // "Try it out" starts from the documented examples: the filter example (cohort 12) is cleared, as a reader would.
    const properties = page.locator(`${block} input[placeholder="properties"]`);
    assert.match(
      await properties.map((input) => (input as unknown as { value: string }).value).wait(),
      /"type":"cohort"/,
    );
    await properties.click();
    await page.keyboard.down('Control');
    await page.keyboard.press('KeyA');
    await page.keyboard.up('Control');
    await page.keyboard.press('Backspace');
    await page.locator(`${block} ::-p-text(Execute)`).click();
    await page.locator(`${block} .live-responses-table .response-col_status`).wait();
    const operation = await operationText(summary);
    assert.match(operation, /ada@example\.com/);
    assert.match(operation, /"count": 1/);
    assert.deepEqual(problems, []);
  });
});
