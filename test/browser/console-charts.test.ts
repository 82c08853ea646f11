// How the console's insights read, in Chromium, over a week of realistic traffic: 30 visitors,
// each first anonymous, 18 of them identified when they sign up, some creating a project, many
// coming back. The funnel's converted and dropped-off never cover each other and say their
// conversions; retention is a cohort table of percentages; paths is a flow of readable names;
// lifecycle's legend names each status once; a count that includes deleted persons says so.
// Every expected number comes from the journeys below, not from the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'puppeteer-core';
import {
  aria,
  capture,
  click,
  openInsights,
  screenshot,
  startConsoleHarness,
  text,
  type ConsoleHarness,
  type WatchedPage,
} from '../helpers/console-browser.ts';
import {
  defaultInsight,
  filtersQuery,
  insightFilters,
  newSeries,
  type InsightKind,
  type InsightState,
} from '../../console/src/insights/insight-query.ts';

let harness: ConsoleHarness;
let watched: WatchedPage;
let page: Page;

const NAMES = [
  'Ada', 'Bruno', 'Chen', 'Dara', 'Emil', 'Farah', 'Goran', 'Hana', 'Ines', 'Jonas',
  'Kemal', 'Lena', 'Mateo', 'Nia', 'Oskar', 'Priya', 'Quinn', 'Rosa', 'Sami', 'Tomas',
  'Uma', 'Viktor', 'Wren', 'Xiu', 'Yara', 'Zoltan', 'Amara', 'Bilal', 'Chloe', 'Dmitri',
]; // prettier-ignore
const SITE = 'https://app.example.com';
const BLOG = `${SITE}/blog/how-we-price-our-plans-for-teams-of-every-size`;
const ONBOARDING = `${SITE}/onboarding/create-your-first-project?step=welcome&ref=pricing-page`;

interface Visitor {
  index: number;
  name: string;
  email: string;
  firstDay: number;
  signsUp: boolean;
  createsProject: boolean;
  /** Days of January with a pageview. */
  days: number[];
}

const visitors: Visitor[] = NAMES.map((name, offset) => {
  const index = offset + 1;
  const firstDay = 8 + (offset % 5);
  const signsUp = index % 5 === 0 || index % 5 === 2 || index % 5 === 4;
  const returns = [1, 2, 3, 4].map((k) => firstDay + k).filter((day) => day <= 14 && (index + day) % 3 !== 0);
  return {
    index,
    name,
    email: `${name.toLowerCase()}@example.com`,
    firstDay,
    signsUp,
    createsProject: signsUp && index % 3 !== 0,
    days: [firstDay, ...returns],
  };
});

const at = (day: number, minutes: number) =>
  new Date(Date.UTC(2024, 0, day, 9, 0, 0) + minutes * 60_000).toISOString().replace('.000Z', 'Z');

function journey(visitor: Visitor): Array<Record<string, unknown>> {
  const anonymous = `anon-${visitor.index}`;
  const user = `user-${visitor.index}`;
  const start = visitor.index * 3;
  const view = (distinctId: string, day: number, minutes: number, url: string) => ({
    event: '$pageview',
    distinct_id: distinctId,
    timestamp: at(day, minutes),
    properties: { $current_url: url },
  });
  // Some read the docs before the pricing; some who do not sign up read the blog after it.
  const events: Array<Record<string, unknown>> = [
    view(anonymous, visitor.firstDay, start, `${SITE}/`),
    ...(visitor.index % 3 === 0 ? [view(anonymous, visitor.firstDay, start + 1, `${SITE}/docs`)] : []),
    view(anonymous, visitor.firstDay, start + 2, `${SITE}/pricing`),
  ];
  if (!visitor.signsUp && visitor.index % 2 === 0) events.push(view(anonymous, visitor.firstDay, start + 3, BLOG));
  if (visitor.signsUp) {
    events.push(
      view(anonymous, visitor.firstDay, start + 3, ONBOARDING),
      {
        event: '$identify',
        distinct_id: user,
        timestamp: at(visitor.firstDay, start + 4),
        properties: { $anon_distinct_id: anonymous, $set: { email: visitor.email, name: visitor.name } },
      },
      { event: 'signed up', distinct_id: user, timestamp: at(visitor.firstDay, start + 5), properties: {} },
    );
  }
  if (visitor.createsProject) {
    events.push({
      event: 'project created',
      distinct_id: user,
      timestamp: at(visitor.firstDay, start + 5 + 10 * (1 + (visitor.index % 4))),
      properties: {},
    });
  }
  for (const day of visitor.days.slice(1)) {
    events.push(view(visitor.signsUp ? user : anonymous, day, 60 + visitor.index, `${SITE}/dashboard`));
  }
  return events;
}

/** What the page tells of an element, for geometry checks (the tests' types know no DOM). */
interface Drawn {
  textContent: string | null;
  getBoundingClientRect(): { left: number; right: number; top: number; bottom: number; width: number };
}

/** How a visitor is named in a persons list: their e-mail once identified, else their anonymous id. */
const shownAs = (visitor: Visitor) => (visitor.signsUp ? visitor.email : `anon-${visitor.index}`);
const deleted = visitors.filter((visitor) => !visitor.signsUp).slice(0, 2);

async function tableText(caption: string): Promise<string> {
  const table = await page.waitForSelector(aria(caption, 'table'));
  assert.ok(table, `a table "${caption}"`);
  return table.evaluate((element) => (element as unknown as { innerText: string }).innerText);
}

const KINDS: Record<string, InsightKind> = {
  Funnel: 'funnel',
  Retention: 'retention',
  Paths: 'paths',
  Lifecycle: 'lifecycle',
};

/** Opens the insight as a shared link names it (the kind, its events, and the week of the journeys). */
async function showInsight(kind: string, events: string | null) {
  const state: InsightState = {
    ...defaultInsight(),
    kind: KINDS[kind],
    series: (events ?? '$pageview').split(',').map((name) => newSeries(name.trim())),
    dateFrom: '2024-01-08',
    dateTo: '2024-01-14',
  };
  const query = new URLSearchParams(filtersQuery(insightFilters(state)));
  await page.goto('about:blank');
  await page.goto(`${harness.baseUrl}/#/p/${harness.tenant.project.id}/insights?${query.toString()}`);
}

before(async () => {
  harness = await startConsoleHarness();
  await capture(harness, visitors.flatMap(journey));
  // Two visitors who never signed up are deleted afterwards; their events stay and are counted.
  for (const visitor of deleted) {
    const project = harness.tenant.project.id;
    const found = await harness.ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${project}/persons/?distinct_id=anon-${visitor.index}`,
      headers: harness.tenant.headers,
    });
    const id = (found.json() as { results: Array<{ id: number }> }).results[0]?.id;
    assert.ok(id, `anon-${visitor.index} is a person`);
    const gone = await harness.ctx.app.inject({
      method: 'DELETE',
      url: `/api/projects/${project}/persons/${id}/`,
      headers: harness.tenant.headers,
    });
    assert.equal(gone.statusCode, 204, gone.body);
  }
  watched = await openInsights(harness);
  page = watched.page;
});

after(async () => {
  await harness?.close();
});

describe('console: how insights read', () => {
  const signedUp = visitors.filter((visitor) => visitor.signsUp);
  const created = visitors.filter((visitor) => visitor.createsProject);

  it('draws a funnel whose converted and dropped-off sit side by side, with each step’s conversions and median time', async () => {
    await showInsight('Funnel', '$pageview, signed up, project created');
    const droppedAtThree = signedUp.length - created.length;
    const bar = await page.waitForSelector(
      aria(`${created.length} of ${visitors.length} converted, ${droppedAtThree} dropped off`),
    );
    assert.ok(bar);
    const rects = await bar.evaluate((svg) =>
      Array.from((svg as unknown as { querySelectorAll(s: string): ArrayLike<Drawn> }).querySelectorAll('rect'))
        .slice(1)
        .map((rect) => {
          const box = rect.getBoundingClientRect();
          return { left: box.left, right: box.right, width: box.width };
        }),
    );
    assert.equal(rects.length, 2, 'converted and dropped off');
    const [converted, dropped] = rects;
    assert.ok(converted.width > 0 && dropped.width > 0, 'both are drawn');
    assert.ok(converted.right <= dropped.left + 0.5, 'dropped off starts where converted ends');
    // Both measured against those who entered.
    const whole = (converted.width + dropped.width) / ((created.length + droppedAtThree) / visitors.length);
    assert.ok(Math.abs(converted.width / whole - created.length / visitors.length) < 0.01);

    const percent = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;
    const main = await page.$eval('main', (element) => (element as unknown as { innerText: string }).innerText);
    assert.match(
      main,
      new RegExp(`2\\. signed up\\s+${percent(signedUp.length, visitors.length)} of step 1 · median \\d+m from step 1`),
    );
    assert.match(
      main,
      new RegExp(
        `${percent(created.length, visitors.length)} of step 1 · ${percent(created.length, signedUp.length)} of step 2`,
      ),
    );
    // A project is created 10 to 40 minutes after signing up: step 3's median is theirs.
    const gaps = created.map((visitor) => 10 * (1 + (visitor.index % 4))).sort((a, b) => a - b);
    const median =
      gaps.length % 2 ? gaps[(gaps.length - 1) / 2] : (gaps[gaps.length / 2 - 1] + gaps[gaps.length / 2]) / 2;
    assert.match(main, new RegExp(`median ${Math.floor(median)}m( \\d+s)? from step 2`));
    await screenshot(page, 'insights-funnel');

    await click(page, `Persons of Converted, 3. project created: ${created.length}`);
    const listed = await tableText('Persons behind Converted, 3. project created');
    for (const visitor of created) assert.match(listed, new RegExp(visitor.email));
    for (const visitor of signedUp.filter((one) => !one.createsProject))
      assert.doesNotMatch(listed, new RegExp(visitor.email));
  });

  it('says how many persons behind a count were deleted since, and lists the rest', async () => {
    const dropped = visitors.filter((visitor) => !visitor.signsUp);
    await click(page, `Persons of Dropped off, 2. signed up: ${dropped.length}`);
    // The note comes with the persons' answer: read the table after it, not while it still fills.
    await page.waitForSelector(
      text(`This count includes ${deleted.length} persons deleted since; they are not listed.`),
    );
    const listed = await tableText('Persons behind Dropped off, 2. signed up');
    const rows = listed.split('\n').filter((line) => /anon-\d+/.test(line));
    assert.equal(rows.length, dropped.length - deleted.length);
    for (const visitor of deleted) assert.doesNotMatch(listed, new RegExp(`anon-${visitor.index}\\b`));
    await screenshot(page, 'insights-deleted-persons');
    // A point none of whose persons were deleted says nothing of the kind.
    await click(page, `Persons of Converted, 2. signed up: ${signedUp.length}`);
    await tableText('Persons behind Converted, 2. signed up');
    assert.equal(await page.$(text('deleted since')), null);
  });
  /** Each row of the table of that caption as its cells' texts. */
  async function rowsOf(caption: string): Promise<string[][]> {
    const table = await page.waitForSelector(aria(caption, 'table'));
    assert.ok(table);
    return table.evaluate((element) =>
      Array.from(
        (
          element as unknown as { querySelectorAll(s: string): ArrayLike<{ cells: ArrayLike<{ innerText: string }> }> }
        ).querySelectorAll('tr'),
      ).map((row) => Array.from(row.cells).map((cell) => cell.innerText.trim())),
    );
  }

  it('reads retention as a cohort table: dated rows, a percentage per period, counts on demand, no future cells', async () => {
    await showInsight('Retention', '$pageview');
    await page.waitForSelector(aria('Retention by cohort', 'table'));
    const rows = await rowsOf('Retention by cohort');
    assert.deepEqual(rows[0].slice(0, 4), ['COHORT', 'PERSONS', 'DAY 0', 'DAY 1']);
    const activeOn = (day: number) => visitors.filter((visitor) => visitor.days.includes(day));
    const cohort = activeOn(8);
    const share = (part: number, whole: number) => `${Math.round((part / whole) * 100)}%`;
    const eighth = rows.find((row) => row[0] === '8 Jan 2024');
    assert.ok(eighth, 'a row dated 8 Jan 2024');
    assert.deepEqual(eighth.slice(1, 9), [
      String(cohort.length),
      '100%',
      ...[9, 10, 11, 12, 13, 14].map((day) =>
        share(cohort.filter((one) => one.days.includes(day)).length, cohort.length),
      ),
    ]);
    const last = rows.at(-1) ?? [];
    assert.equal(last[0], '14 Jan 2024');
    assert.equal(last[2], '100%');
    assert.ok(
      last.slice(3).every((cell) => cell === ''),
      'the periods after 14 January are empty',
    );
    assert.equal(rows.find((row) => row[0] === '4 Jan 2024')?.[2], '–', 'a cohort of nobody has no percentage');
    const intro = await page.$eval(
      '.retention figcaption p',
      (element) => (element as unknown as { innerText: string }).innerText,
    );
    assert.match(intro, /did \$pageview in that day; each cell is the share of them who did \$pageview/);

    await click(page, 'Show counts', 'checkbox');
    const counted = (await rowsOf('Retention by cohort')).find((row) => row[0] === '8 Jan 2024');
    assert.equal(counted?.[2], `100% ${cohort.length}`);
    await screenshot(page, 'insights-retention');

    const back = cohort.filter((visitor) => visitor.days.includes(10));
    await click(
      page,
      `Persons of 8 Jan 2024 cohort, Day 2: ${share(back.length, cohort.length)}, ${back.length} of ${cohort.length}`,
    );
    const listed = await tableText('Persons behind 8 Jan 2024 cohort, Day 2');
    for (const visitor of cohort) {
      const shown = new RegExp(`${shownAs(visitor)}\\b`);
      if (back.includes(visitor) && !deleted.includes(visitor)) assert.match(listed, shown);
      else assert.doesNotMatch(listed, shown);
    }
    // The cell counted a visitor deleted since: the cohort's list cannot show them, and says so.
    const gone = back.filter((visitor) => deleted.includes(visitor)).length;
    assert.ok(gone > 0, 'the journeys delete one of this cell');
    await page.waitForSelector(
      text(
        `This count includes ${gone} ${gone === 1 ? 'person' : 'persons'} deleted since; ${gone === 1 ? 'it is' : 'they are'} not listed.`,
      ),
    );
  });

  it('draws paths as a flow of readable names, the whole URL on hover, its links listing their persons', async () => {
    await showInsight('Paths', null);
    const flow = await page.waitForSelector(aria('Paths flow; the table below lists every link'));
    assert.ok(flow);
    await screenshot(page, 'insights-paths');
    const labels = await flow.evaluate((svg) =>
      Array.from((svg as unknown as { querySelectorAll(s: string): ArrayLike<Drawn> }).querySelectorAll('text')).map(
        (label) => {
          const box = label.getBoundingClientRect();
          return { text: label.textContent ?? '', left: box.left, right: box.right, top: box.top, bottom: box.bottom };
        },
      ),
    );
    assert.ok(labels.length >= 3, 'a label per node');
    for (const [i, one] of labels.entries())
      for (const other of labels.slice(i + 1)) {
        const apart =
          one.right <= other.left || other.right <= one.left || one.bottom <= other.top || other.bottom <= one.top;
        assert.ok(apart, `"${one.text}" and "${other.text}" do not overlap`);
      }
    const main = await page.$eval('main', (element) => (element as unknown as { innerText: string }).innerText);
    assert.doesNotMatch(main, /\b\d+_(https?:|\$)/, 'no step prefixes');
    assert.match(main, /\/pricing/);
    assert.doesNotMatch(
      main,
      /\/onboarding\/create-your-first-project\?step=welcome&ref=pricing-page/,
      'the long URL is shortened',
    );
    // The table's cells are named by the shortened URL and carry the whole one as their title (the hover).
    const full = await page.$$eval(
      'td',
      (cells) =>
        cells
          .map((cell) => cell as unknown as { innerText: string; title: string })
          .find((cell) => cell.innerText.startsWith('/onboarding/'))?.title,
    );
    assert.equal(full, ONBOARDING, 'the whole URL on hover');

    // Those who signed up without reading the docs first took it from step 2 to step 3.
    const direct = signedUp.filter((visitor) => visitor.index % 3 !== 0);
    const link = `${SITE}/pricing → ${ONBOARDING} (step 2 → 3)`;
    await click(page, `Persons of ${link}: ${direct.length}`);
    const listed = await tableText(`Persons behind ${link}`);
    for (const visitor of visitors) {
      const shown = new RegExp(`${shownAs(visitor)}\\b`);
      if (direct.includes(visitor)) assert.match(listed, shown);
      else assert.doesNotMatch(listed, shown);
    }
  });

  it('names each lifecycle status once in its legend, and the event once above it', async () => {
    await showInsight('Lifecycle', '$pageview');
    await page.waitForSelector(aria('Lifecycle chart; the table below lists every point'));
    const legend = await page.$$eval('.legend li', (items) =>
      items.map((item) => (item as unknown as { innerText: string }).innerText.trim()),
    );
    assert.deepEqual(legend, ['New', 'Returning', 'Resurrecting', 'Dormant']);
    await page.waitForSelector(text('Persons who did $pageview, by their status in each period'));
    const points = await rowsOf('Every point; choose one to list its persons');
    const header = points[0];
    assert.deepEqual(header, ['POINT', 'NEW', 'RETURNING', 'RESURRECTING', 'DORMANT']);
    // None of 9 January's new visitors was deleted.
    const firstDay = visitors.filter((visitor) => visitor.firstDay === 9);
    assert.ok(firstDay.every((visitor) => !deleted.includes(visitor)));
    await click(page, `Persons of New, 9-Jan-2024: ${firstDay.length}`);
    const listed = await tableText('Persons behind New, 9-Jan-2024');
    for (const visitor of firstDay.filter((one) => !deleted.includes(one)))
      assert.match(listed, new RegExp(`${shownAs(visitor)}\\b`));
    await screenshot(page, 'insights-lifecycle');
    assert.deepEqual(watched.problems, []);
  });
});
