// A visitor sets person properties through the public project token; exported as CSV they must
// not become live spreadsheet formulas. Every CSV a person endpoint writes is read back cell by
// cell: no cell starts with =, +, -, @, a tab or a carriage return unless it is a JSON number.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setupAnalytics, type AnalyticsContext } from '../helpers/analytics-factories.ts';
import { setupTestApp } from '../helpers/app.ts';
import { personByDistinctId, post } from './capture-helpers.ts';

const FORMULA = '=HYPERLINK("http://evil.example/","click")';
const HOSTILE = {
  name: FORMULA,
  plan: '-5',
  note: '@SUM(A1:A9)',
  tabbed: '\t=1+1',
  returned: '\r=1+1',
  plus: '+1+1',
  '=cmd': 'key of a formula',
};
const DISTINCT_ID = '=evil-visitor';
const TRIGGERS = ['=', '+', '-', '@', '\t', '\r'];

/** RFC 4180 rows of cells (quoted cells may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (char === '"') quoted = false;
      else cell += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      row.push(cell);
      cell = '';
    } else if (char === '\n') {
      rows.push([...row, cell]);
      row = [];
      cell = '';
    } else cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}

const isNumber = (cell: string) => cell.trim() !== '' && Number.isFinite(Number(cell)) && /^-?\d/.test(cell);

describe('CSV exports neutralize formulas', () => {
  let a: AnalyticsContext;
  let personId: number;
  let base: string;

  before(async () => {
    a = await setupAnalytics();
    base = `/api/projects/${a.teamId}/persons`;
    const captured = await post(a.ctx.app, '/batch/', {
      api_key: a.tenant.project.api_token,
      batch: [
        {
          event: '$pageview',
          distinct_id: DISTINCT_ID,
          timestamp: '2024-01-10T10:00:00Z',
          properties: { $set: { ...HOSTILE, score: -5, ratio: -0.25 } },
        },
        { event: '=signed up', distinct_id: DISTINCT_ID, timestamp: '2024-01-10T11:00:00Z' },
      ],
    });
    assert.equal(captured.statusCode, 200, captured.body);
    const person = await personByDistinctId(a.ctx.deps.db, a.teamId, DISTINCT_ID);
    assert.ok(person);
    personId = person.id;
    // An activity entry whose change names the hostile key and values.
    const patched = await a.ctx.app.inject({
      method: 'PATCH',
      url: `${base}/${personId}/`,
      headers: a.tenant.headers,
      payload: { properties: { '-x': '=2+2' } },
    });
    assert.equal(patched.statusCode, 200, patched.body);
  });
  after(() => a.ctx.close());

  async function csvOf(url: string, method: 'GET' | 'PATCH' | 'POST' = 'GET', payload?: object): Promise<string[][]> {
    const response = await a.ctx.app.inject({
      method,
      url,
      headers: a.tenant.headers,
      ...(payload ? { payload } : {}),
    });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    assert.match(String(response.headers['content-type']), /^text\/csv/);
    const rows = parseCsv(response.body);
    assert.ok(rows.length >= 2, `${url}: a header and at least one row`);
    return rows;
  }

  /** No cell may start a formula, except a JSON number; answers every cell by column. */
  function assertNeutral(url: string, rows: string[][]): Map<string, string> {
    const [header, ...lines] = rows;
    for (const [index, line] of [header, ...lines].entries()) {
      for (const cell of line) {
        if (index > 0 && isNumber(cell)) continue;
        assert.ok(!TRIGGERS.includes(cell[0]), `${url}: a live formula cell ${JSON.stringify(cell)} in line ${index}`);
      }
    }
    const cells = new Map<string, string>();
    for (const line of lines) line.forEach((cell, column) => cells.set(header[column], cell));
    return cells;
  }

  const personUrls = () => [
    `${base}/?format=csv`,
    `${base}/?format=csv&limit=10`,
    `${base}/?format=csv&search=evil`,
    `${base}/${personId}/?format=csv`,
    `/api/projects/${a.teamId}/persons/trends/?format=csv&entity_id=$pageview&entity_type=events&date_from=2024-01-10&date_to=2024-01-10`,
    `/api/projects/${a.teamId}/persons/funnel/?format=csv&funnel_step=2&date_from=2024-01-01&date_to=2024-01-19&events=${encodeURIComponent(
      JSON.stringify([
        { id: '$pageview', type: 'events', order: 0 },
        { id: '=signed up', type: 'events', order: 1 },
      ]),
    )}`,
  ];

  it('the person lists, the person and the analytical views: values prefixed, text kept, numbers untouched', async () => {
    for (const url of personUrls()) {
      const cells = assertNeutral(url, await csvOf(url));
      const column = (key: string) => [...cells.keys()].find((name) => name.endsWith(key));
      assert.equal(cells.get(column('properties.name') as string), `'${FORMULA}`, url);
      assert.equal(
        cells.get(column('properties.plan') as string),
        "'-5",
        `${url}: text that reads as a number is text`,
      );
      assert.equal(cells.get(column('properties.note') as string), "'@SUM(A1:A9)", url);
      assert.equal(cells.get(column('properties.tabbed') as string), "'\t=1+1", url);
      assert.equal(cells.get(column('properties.returned') as string), "'\r=1+1", url);
      assert.equal(cells.get(column('properties.plus') as string), "'+1+1", url);
      assert.equal(cells.get(column('properties.score') as string), '-5', `${url}: a JSON number stays a number`);
      assert.equal(cells.get(column('properties.ratio') as string), '-0.25', url);
      assert.equal(cells.get(column('distinct_ids.0') as string), `'${DISTINCT_ID}`, url);
      // The key `=cmd` is a header `properties.=cmd`: text that starts with a field name, no formula.
      assert.equal(cells.get(column('properties.=cmd') as string), 'key of a formula', url);
      assert.equal(cells.get(column('name') as string), `'${FORMULA}`, url);
    }
  });

  it('the answers of changes, activity and values', async () => {
    const updated = assertNeutral(
      'update_property',
      await csvOf(`${base}/${personId}/update_property/?format=csv`, 'POST', { key: '@key', value: '-1' }),
    );
    assert.equal(updated.get('properties.@key'), "'-1");
    const patched = assertNeutral(
      'PATCH',
      await csvOf(`${base}/${personId}/?format=csv`, 'PATCH', { properties: { '+k': '+v' } }),
    );
    assert.equal(patched.get('properties.+k'), "'+v");
    const activityRows = await csvOf(`${base}/${personId}/activity/?format=csv`);
    assertNeutral('activity', activityRows);
    const activityText = activityRows.flat();
    assert.ok(
      activityText.includes("'-x") && activityText.includes("'=2+2"),
      'the changed key and value are there, prefixed',
    );
    const values = assertNeutral('values', await csvOf(`${base}/values/?key=name&format=csv`));
    assert.equal(values.get('name'), `'${FORMULA}`);
    const timeline = await csvOf(
      `${base}/${personId}/properties_timeline/?format=csv&events=${encodeURIComponent(JSON.stringify([{ id: '$pageview', type: 'events' }]))}`,
    );
    assertNeutral('properties_timeline', timeline);
    assert.ok(timeline.flat().includes(`'${FORMULA}`), 'the timeline holds the name, prefixed');
  });
});

describe('the API document says so', () => {
  it('every `format` parameter describes the neutralized cells', async () => {
    const ctx = await setupTestApp();
    try {
      const response = await ctx.app.inject({ method: 'GET', url: '/api/schema/' });
      assert.equal(response.statusCode, 200);
      const paths = response.json().paths as Record<
        string,
        Record<string, { parameters?: { name: string; in: string; description?: string }[] }>
      >;
      const formats = Object.entries(paths).flatMap(([path, operations]) =>
        Object.entries(operations).flatMap(([method, operation]) =>
          (operation.parameters ?? [])
            .filter((parameter) => parameter.in === 'query' && parameter.name === 'format')
            .map((parameter) => ({ at: `${method} ${path}`, parameter })),
        ),
      );
      assert.ok(
        formats.some(({ at }) => at === 'get /api/projects/{project_id}/persons/'),
        'the persons list takes format',
      );
      assert.ok(
        formats.some(({ at }) => at === 'get /api/projects/{project_id}/persons/trends/'),
        'the analytical views take format',
      );
      for (const { at, parameter } of formats) assert.match(parameter.description ?? '', /leading `'`[\s\S]*OWASP/, at);
    } finally {
      await ctx.close();
    }
  });
});
