// The first run in Chromium, as a new operator goes through it: a real `herd serve` on an empty
// database prints a link; the sign-in screen says where that link is; the link opens "Create the
// first account", which shows the key once (copied with its button) and signs in to the persons.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import { buildConsole } from '../../console/build.ts';
import { launchChromium, type LaunchedBrowser } from '../helpers/browser.ts';
import { aria, click, fill, mainText, screenshot, waitForText } from '../helpers/console-browser.ts';
import { printedLink, serve, type Serving } from '../integration/first-run-process.ts';

let dir: string;
let server: Serving;
let launched: LaunchedBrowser;
let page: Page;
let link: string;
const problems: string[] = [];

before(async () => {
  await buildConsole({ ifStale: true });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-console-setup-'));
  server = await serve({ DATA_DIR: dir });
  ({ link } = await printedLink(server));
  launched = await launchChromium({ viewport: { width: 1280, height: 900 } });
  await launched.browser
    .defaultBrowserContext()
    .overridePermissions(server.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
  page = await launched.browser.newPage();
  page.setDefaultTimeout(20_000);
  page.on('pageerror', (error) => problems.push(`page error: ${String(error)}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
      problems.push(`console error: ${message.text()}`);
  });
});

after(async () => {
  await launched?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('console: the first run', () => {
  it('the sign-in screen of an empty install says where the setup link is printed', async () => {
    await page.goto(`${server.url}/`);
    await page.waitForSelector(aria('No account yet', 'heading'));
    const text = await mainText(page);
    assert.match(text, /herd serve/);
    assert.match(text, /standard output and in its log/);
    assert.ok(!text.includes(link.split('token=')[1]), 'the page never shows the token');
  });

  it('refuses a link with a wrong token, naming what to do', async () => {
    await page.goto(`${link}x`);
    await page.waitForSelector(aria('Create the first account', 'heading'));
    await fill(page, 'E-mail', 'ada@example.com');
    await click(page, 'Create the account');
    await waitForText(page, 'The setup token is missing or wrong: open the link the server printed.');
  });

  it('creates the account from the printed link, shows the key once, copies it and opens the persons', async () => {
    await page.goto(link);
    await page.reload();
    await page.waitForSelector(aria('Create the first account', 'heading'));
    await fill(page, 'E-mail', 'not an e-mail');
    await click(page, 'Create the account');
    await page.waitForSelector(`${aria('E-mail')}[aria-invalid="true"]`);

    await fill(page, 'E-mail', 'ada@example.com');
    await fill(page, 'Name', 'Ada');
    await fill(page, 'Organization name', 'Analytical Engines');
    await fill(page, 'Project name', 'Difference');
    await click(page, 'Create the account');
    await page.waitForSelector(aria('Your personal API key', 'heading'));
    assert.match(await mainText(page), /it will not be shown again/);
    const key = await page.$eval(
      aria('Your personal API key', 'textbox'),
      (input) => (input as unknown as { value: string }).value,
    );
    assert.match(key, /^phx_/);
    await click(page, 'Copy key');
    await waitForText(page, 'Copied.');
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    await screenshot(page, 'setup');

    await click(page, 'Continue to the console');
    await page.waitForSelector(aria('Sections', 'navigation'));
    await page.waitForSelector(aria('Persons', 'heading'));
    assert.match(page.url(), /#\/p\/\d+\/persons$/);
    const project = await page.$eval(aria('Project', 'combobox'), (select) => {
      const element = select as unknown as { options: { text: string }[]; selectedIndex: number };
      return element.options[element.selectedIndex].text;
    });
    assert.equal(project, 'Difference');
  });

  it('the link says setup is closed once the account exists', async () => {
    await page.goto(link);
    await page.reload();
    await waitForText(page, 'Setup is closed: an account exists already.');
    assert.deepEqual(problems, []);
  });
});
