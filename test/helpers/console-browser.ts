// The console's browser tests: the built console (rebuilt when its sources changed), herd listening
// on a loopback port over a fresh database, and Debian's Chromium driven by puppeteer-core. Pages
// are driven the way a person uses them: by accessible names, roles and visible text.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'puppeteer-core';
import { buildConsole } from '../../console/build.ts';
import { launchChromium } from './browser.ts';
import { setupTestApp, type TestContext } from './app.ts';
import { makeTenant, type Tenant } from './factories.ts';

export interface ConsoleHarness {
  ctx: TestContext;
  tenant: Tenant;
  baseUrl: string;
  browser: Browser;
  downloads: string;
  close(): Promise<void>;
}

/** herd with the console, one tenant (owner, project, all-scopes key) and a browser. */
export async function startConsoleHarness(): Promise<ConsoleHarness> {
  await buildConsole({ ifStale: true });
  const downloads = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-console-downloads-'));
  const launched = await launchChromium({ viewport: { width: 1280, height: 900 }, downloadPath: downloads });
  let ctx: TestContext | undefined;
  let tenant: Tenant;
  try {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  } catch (error) {
    // A browser left open keeps the test file's process alive: the run would hang, not fail.
    await launched.close();
    await ctx?.close();
    throw error;
  }
  const { port } = ctx.app.server.address() as AddressInfo;
  const browser = launched.browser;
  return {
    ctx,
    tenant,
    baseUrl: `http://127.0.0.1:${port}`,
    browser,
    downloads,
    async close() {
      await launched.close();
      await ctx.close();
      fs.rmSync(downloads, { recursive: true, force: true });
    },
  };
}

export interface WatchedPage {
  page: Page;
  /** Every URL the page requested. */
  requests: string[];
  /** Uncaught page errors, console errors and dialogs: none may happen in a healthy console. */
  problems: string[];
}

export async function openConsole(harness: ConsoleHarness): Promise<WatchedPage> {
  const page = await harness.browser.newPage();
  page.setDefaultTimeout(20_000);
  const watched: WatchedPage = { page, requests: [], problems: [] };
  page.on('request', (request) => watched.requests.push(request.url()));
  page.on('pageerror', (error) => watched.problems.push(`page error: ${String(error)}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
      watched.problems.push(`console error: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    watched.problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(`${harness.baseUrl}/`);
  return watched;
}

export const aria = (name: string, role?: string) =>
  role ? `::-p-aria([name=${JSON.stringify(name)}][role="${role}"])` : `::-p-aria(${JSON.stringify(name)})`;
export const text = (value: string) => `::-p-text(${JSON.stringify(value)})`;

export async function fill(page: Page, label: string, value: string) {
  if (value !== '') return page.locator(aria(label)).fill(value);
  // Filling with nothing types nothing: clear the field as a person would.
  await page.locator(aria(label)).click({ count: 3 });
  await page.keyboard.press('Backspace');
}

/** Picks the option a person reads (its text) in the select of that name. */
export async function choose(page: Page, label: string, option: string) {
  const select = await page.locator(aria(label, 'combobox')).waitHandle();
  const value = await select.evaluate((element: unknown, wanted: string) => {
    const options = (element as unknown as { options: ArrayLike<{ text: string; value: string }> }).options;
    return Array.from(options).find((item) => item.text.trim() === wanted)?.value ?? null;
  }, option);
  if (value === null) throw new Error(`no option ${JSON.stringify(option)} in ${label}`);
  await select.select(value);
  await select.dispose();
}

/**
 * Chooses the option named `option` of the open list once the list answers `typed` (every option
 * shown holds it, as a search by that text answers): a list still showing an earlier answer is
 * replaced when the new one arrives, and the option moves from under the pointer mid-click.
 */
export async function pickOption(page: Page, typed: string, option: string) {
  const needle = JSON.stringify(typed.trim().toLowerCase());
  const wanted = JSON.stringify(option);
  await page.waitForFunction(`(() => {
    const names = Array.from(document.querySelectorAll('[role="listbox"]:not([hidden]) [role="option"]'),
      (item) => item.getAttribute('aria-label') ?? '');
    return names.includes(${wanted}) && names.every((name) => name.toLowerCase().includes(${needle}));
  })()`);
  await page.locator(aria(option, 'option')).click();
}

export async function click(page: Page, name: string, role = 'button') {
  await page.locator(aria(name, role)).click();
}

/**
 * Waits until the page says it is loading nothing (no "Loading …" status left), as a person waits
 * for a page to settle before acting on it: a part that arrives late moves what is below it, and a
 * click aimed before the move lands elsewhere.
 */
export async function waitForLoaded(page: Page) {
  await page.waitForFunction(
    `!Array.from(document.querySelectorAll('[role="status"]')).some((status) => status.textContent.startsWith('Loading '))`,
  );
}

export async function waitForText(page: Page, value: string) {
  await page.waitForSelector(text(value));
}

/** The text of the page's main region as rendered (what a person reads). */
export async function mainText(page: Page): Promise<string> {
  return page.$eval('main', (element) => (element as unknown as { innerText: string }).innerText);
}

export async function signIn(page: Page, key: string) {
  await fill(page, 'Personal API key', key);
  await click(page, 'Sign in');
  await page.waitForSelector(aria('Sections', 'navigation'));
}

/** The console signed in with the harness tenant's key. */
export async function openSignedIn(harness: ConsoleHarness): Promise<WatchedPage> {
  const watched = await openConsole(harness);
  await signIn(watched.page, harness.tenant.key);
  return watched;
}

/** A signed-in console on its Insights screen, once the screen shows `ready` (a field's name). */
export async function openInsights(harness: ConsoleHarness, ready = 'Insight'): Promise<WatchedPage> {
  const watched = await openSignedIn(harness);
  await click(watched.page, 'Insights', 'link');
  await watched.page.waitForSelector(aria(ready, 'combobox'));
  return watched;
}

/**
 * Screenshots of the main screens. With UPDATE_SCREENSHOTS=1 they replace docs/console/*.png (what
 * docs/console.md shows); otherwise they go to a temporary folder, so a test run leaves the tree clean.
 */
export async function screenshot(page: Page, name: string) {
  const dir =
    process.env.UPDATE_SCREENSHOTS === '1'
      ? path.resolve(import.meta.dirname, '../../docs/console')
      : path.join(os.tmpdir(), 'herd-console-screenshots');
  fs.mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) as `${string}.png`, fullPage: true });
}

/** Captures events through the public capture API, as a tracked site would. */
export async function capture(harness: ConsoleHarness, batch: Array<Record<string, unknown>>) {
  const response = await harness.ctx.app.inject({
    method: 'POST',
    url: '/batch/',
    payload: { api_key: harness.tenant.project.api_token, batch },
  });
  if (response.statusCode !== 200) throw new Error(`capture failed: ${response.statusCode} ${response.body}`);
}
