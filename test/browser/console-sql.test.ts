// The console in Chromium: the SQL screen — a HogQL query typed or filled from an example, run,
// its rows under their columns, `hasMore` said, an error shown at its line and column, captured
// values as text.
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
  waitForText,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';

const HOSTILE_EVENT = `<img src=x onerror="fetch('/pwned-sql')">`;

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

const queryBox = () => page.locator(aria('HogQL query', 'textbox'));
const boxValue = () =>
  page.$eval(aria('HogQL query', 'textbox'), (element) => (element as unknown as { value: string }).value);

/** The header cells and the rows of the results table, as text. */
async function resultTable(): Promise<{ columns: string[]; rows: string[][] }> {
  await page.waitForSelector(aria('Query results', 'table'));
  // A string run in the page (the test is type-checked without the DOM's types).
  return page.evaluate(`(() => {
    const table = document.querySelector('main table');
    const cells = (row) => Array.from(row.children).map((cell) => cell.textContent);
    return {
      columns: cells(table.querySelector('thead tr')),
      rows: Array.from(table.querySelectorAll('tbody tr')).map(cells),
    };
  })()`) as Promise<{ columns: string[]; rows: string[][] }>;
}

async function run(query: string) {
  await fill(page, 'HogQL query', query);
  await click(page, 'Run query');
}

before(async () => {
  harness = await startConsoleHarness();
  const batch: Array<Record<string, unknown>> = [
    { event: HOSTILE_EVENT, distinct_id: 'mallory', properties: { $set: { email: 'mallory@example.com' } } },
  ];
  for (let n = 0; n < 104; n++) batch.push({ event: '$pageview', distinct_id: `visitor-${n % 4}` });
  await capture(harness, batch);
  watched = await openSignedIn(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: SQL', () => {
  it('opens from the navigation with a query box and examples a click fills in', async () => {
    await click(page, 'SQL', 'link');
    await page.waitForSelector(aria('SQL', 'heading'));
    await queryBox().wait();
    await click(page, 'Newest persons');
    assert.match(await boxValue(), /^select id, properties\.email as email, created_at\nfrom persons/);
    await click(page, 'Events per person e-mail');
    assert.match(await boxValue(), /person\.properties\.email as email/);
  });

  it('runs every example', async () => {
    for (const example of [
      'Events by name, last 7 days',
      'Newest events',
      'Events per person e-mail',
      'Newest persons',
    ]) {
      await click(page, example);
      await click(page, 'Run query');
      const table = await resultTable();
      assert.ok(table.columns.length > 0 && table.rows.length > 0, example);
      assert.equal(await page.$('::-p-aria([role="alert"])'), null, example);
    }
  });

  it('runs a query and shows its rows under its columns, captured values as text', async () => {
    await run('select event, count() as n\nfrom events\ngroup by event\norder by n desc');
    const table = await resultTable();
    assert.deepEqual(table.columns, ['event', 'n']);
    assert.deepEqual(table.rows, [
      ['$pageview', '104'],
      [HOSTILE_EVENT, '1'],
    ]);
    assert.match(await mainText(page), /2 rows, all of them\./);
    assert.equal((await page.$$('main img')).length, 0);
    assert.ok(!watched.requests.some((url) => /pwned/.test(url)), 'nothing captured ran');
    await screenshot(page, 'sql');
  });

  it('says when more rows follow than it shows', async () => {
    await run('select uuid, event from events');
    const table = await resultTable();
    assert.equal(table.rows.length, 100);
    assert.match(await mainText(page), /100 rows shown — more rows follow beyond this query's limit of 100 /);
    await run('select uuid from events limit 3');
    assert.equal((await resultTable()).rows.length, 3);
    assert.match(await mainText(page), /3 rows shown — more rows follow beyond this query's limit of 3 /);
    await run('select uuid from events limit 200');
    assert.equal((await resultTable()).rows.length, 105);
    assert.match(await mainText(page), /105 rows, all of them\./);
  });

  it('shows an error with its line and column and puts the caret there', async () => {
    await run('select event,\n  cout()\nfrom events');
    await page.waitForSelector('::-p-aria([role="alert"])');
    assert.match(await mainText(page), /Unknown function cout\(\)\. Did you mean count\? \(line 2, column 3\)/);
    await waitForText(page, 'Error at line 2, column 3');
    assert.equal(await page.$(aria('Query results', 'table')), null, 'no results beside an error');
    const caret = await page.$eval(aria('HogQL query', 'textbox'), (element) => {
      const box = element as unknown as { selectionStart: number; value: string; getAttribute(name: string): string };
      return { before: box.value.slice(0, box.selectionStart), invalid: box.getAttribute('aria-invalid') };
    });
    assert.deepEqual(caret, { before: 'select event,\n  ', invalid: 'true' });
    await screenshot(page, 'sql-error');
    // Tables other than the project's are not reachable; the error says what is.
    await run('select * from pg_catalog.pg_class');
    await page.waitForSelector('::-p-aria([role="alert"])');
    assert.doesNotMatch(await mainText(page), /relname/);
    assert.deepEqual(watched.problems, []);
  });
});
