// The SQL each canonical analytical view runs, committed beside this file (analytics/<case>.sql):
// a change to a view's SQL shows as a diff of its snapshot. `npm run snapshots` (UPDATE_SNAPSHOTS=1)
// rewrites them; without it a query that differs from its snapshot fails the test.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import type { AnalyticsContext } from '../helpers/analytics-factories.ts';
import { cases, recording, runCase, setupCases } from '../helpers/analytics-cases.ts';

const DIR = path.join(import.meta.dirname, 'analytics');
const UPDATE = process.env.UPDATE_SNAPSHOTS === '1';

/** The SQL text with each line trimmed and blank lines dropped (moving a template does not show). */
function shown(queries: CompiledQuery[]): string {
  return queries
    .map((query, i) => {
      const text = query.sql
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .join('\n');
      return `-- query ${i + 1}\n${text}\n-- parameters: ${JSON.stringify(query.parameters)}\n`;
    })
    .join('\n');
}

describe('analytics SQL snapshots', () => {
  let a: AnalyticsContext;
  let queries: CompiledQuery[];
  let cohort: number;
  before(async () => {
    ({ a, cohort } = await setupCases());
    queries = [];
    // The routes read deps.db at each request: from here on the views' statements are recorded.
    Object.assign(a.ctx.deps, { db: recording(a.ctx.deps.db, queries) });
  });
  after(() => a.ctx.close());

  it('each canonical view runs the SQL of its snapshot', async () => {
    if (UPDATE) fs.mkdirSync(DIR, { recursive: true });
    const failures: string[] = [];
    for (const [name, [view, params]] of Object.entries(cases(cohort))) {
      queries.length = 0;
      const res = await runCase(a, view, params);
      assert.equal(res.status, 200, `${name}: ${res.text}`);
      assert.ok(queries.length > 0, `${name} ran no query on events`);
      const text = `-- ${view} ${JSON.stringify(params)}\n\n${shown(queries)}`;
      const file = path.join(DIR, `${name}.sql`);
      if (UPDATE) fs.writeFileSync(file, text);
      else if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) failures.push(name);
    }
    assert.deepEqual(failures, [], 'SQL differs from its snapshot: run `npm run snapshots` and read the diff');
  });
});
