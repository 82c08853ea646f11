// The time limit of a request's statements. On PostgreSQL a statement over it is cancelled by the
// server (nothing left running) and the request answers 504 `query_timeout`. PGlite runs
// PostgreSQL on the process's own thread and never fires `statement_timeout`: there the limit does
// not apply, and the same requests answer in full (docs/operations.md says so).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { currentQueryBudget, withQueryBudget } from '../../src/db/query-budget.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { enc } from './persons.fixtures.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
// Enough rows that no statement meets a 1 ms limit on PostgreSQL; PGlite enforces none, and its
// funnel grows fast with the persons, so it gets a few.
const PERSONS = onPostgres ? 20_000 : 600;
const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
const SCAN = enc([{ key: 'email', value: '^user.*7@', operator: 'regex', type: 'person' }]);

/** PERSONS persons of the project, e-mails user<n>@example.com, one a minute back from now. */
async function addPersons(ctx: TestContext, team: number) {
  await sql`insert into persons (team_id, uuid, properties, created_at)
    select ${team}::integer, gen_random_uuid(), jsonb_build_object('email', 'user' || g || '@example.com'), now() - g * interval '1 minute'
    from generate_series(1, ${PERSONS}::integer) g`.execute(ctx.deps.db);
}

/** The 504 of a statement cancelled at a 1 ms limit, with the advice of its class. */
function assertQueryTimeout(response: { statusCode: number; body: string; json: () => unknown }, advice: string) {
  assert.equal(response.statusCode, 504, response.body);
  assert.deepEqual(response.json(), {
    type: 'server_error',
    code: 'query_timeout',
    detail: `The query took longer than 0.001 s and was cancelled. ${advice}`,
    attr: null,
  });
}

describe('statement time limit', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let persons: string;

  before(async () => {
    // A limit no statement over these rows can meet for the analytical class, the default for the rest.
    ctx = await setupTestApp({ config: { statementTimeoutMs: { default: 60_000, analytics: 1 } } });
    tenant = await makeTenant(ctx.deps.db);
    const team = tenant.project.id;
    persons = `/api/projects/${team}/persons`;
    await addPersons(ctx, team);
    await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
      select ${team}::integer, gen_random_uuid(), '$pageview', 'd' || p.id, p.id, p.id, '{}', '{}', now() - (p.id % 7) * interval '1 day'
      from persons p cross join generate_series(1, 3) where p.team_id = ${team}::integer`.execute(ctx.deps.db);
  });
  after(() => ctx.close());

  const get = (url: string) => ctx.app.inject({ method: 'GET', url, headers: tenant.headers });
  const post = (url: string, payload: object) =>
    ctx.app.inject({ method: 'POST', url, headers: tenant.headers, payload });

  /** Statements still running on this database, but for the one asking. */
  async function running(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`.execute(ctx.deps.db);
    return rows[0].n;
  }

  const funnel = {
    events: [
      { id: '$pageview', type: 'events', order: 0 },
      { id: '$pageview', type: 'events', order: 1 },
    ],
    date_from: '-7d',
    funnel_step: 2,
  };
  const views = [
    ['the whole persons CSV export', () => get(`${persons}/?format=csv&properties=${SCAN}`)],
    [
      'an analytical view',
      () =>
        get(
          `${persons}/trends/?entity_id=%24pageview&entity_type=events&date_from=${threeDaysAgo}&date_to=${threeDaysAgo}`,
        ),
    ],
    // A body is read in another async context than the request's first hooks: the budget must follow it.
    ['an analytical view asked by POST', () => post(`${persons}/funnel/`, funnel)],
  ] as const;

  for (const [name, send] of views) {
    it(`${name} runs under the analytical limit`, async () => {
      const response = await send();
      if (!onPostgres) {
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(response.body.length > 1000, 'answered in full');
        return;
      }
      assertQueryTimeout(response, 'Narrow the date range or filters.');
      assert.equal(await running(), 0, 'the cancelled statement is not left running');
    });
  }

  it('a scan of the persons list runs under the ordinary limit, and the pool serves on', async () => {
    const response = await get(`${persons}/?properties=${SCAN}`);
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(response.json().count > 0);
    const csvPage = await get(`${persons}/?format=csv&limit=5`);
    assert.equal(csvPage.statusCode, 200, 'a CSV page is no export');
  });

  it('each pooled connection takes the budget of the request that holds it, and the default outside one', async () => {
    const show = async () =>
      (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(ctx.deps.db)).rows[0].statement_timeout;
    const outside = await show();
    // PGlite's one connection is left alone: a setting it would never enforce would only cost a round trip.
    assert.equal(await withQueryBudget({ statementTimeoutMs: 1234 }, show), onPostgres ? '1234ms' : outside);
    assert.equal(await withQueryBudget({ statementTimeoutMs: 0 }, show), onPostgres ? '0' : outside);
    assert.equal(currentQueryBudget(), undefined);
    assert.equal(await show(), outside);
  });
});

describe('statement time limit of the ordinary class', () => {
  let ctx: TestContext;
  let tenant: Tenant;

  before(async () => {
    // The other way round: no ordinary statement meets 1 ms, the analytical class has a minute.
    ctx = await setupTestApp({ config: { statementTimeoutMs: { default: 1, analytics: 60_000 } } });
    tenant = await makeTenant(ctx.deps.db);
    await addPersons(ctx, tenant.project.id);
  });
  after(() => ctx.close());

  it('answers 504 saying to retry, not to narrow a date range it does not have', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${tenant.project.id}/persons/?properties=${SCAN}`,
      headers: tenant.headers,
    });
    if (!onPostgres) {
      assert.equal(response.statusCode, 200, response.body);
      return;
    }
    assertQueryTimeout(response, 'Retry later; the server operator sets this limit.');
  });
});
