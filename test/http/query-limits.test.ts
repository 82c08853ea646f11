// The query endpoint is bounded like every heavy request: a runaway query (a triple cross join of
// events) ends at the analytical statement limit with `query_timeout`, PostgreSQL having cancelled
// it; and a grouped count aggregates where the events are (on Citus, on the workers). PGlite runs
// PostgreSQL on the process's own thread and never fires `statement_timeout`: there the limit does
// not apply, and a small cross join answers in full (docs/operations.md).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { shareParameters } from '../../src/hogql/parameters.ts';
import { compileHogQLQuery } from '../../src/query/hogql-query.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { personlessKeySql } from '../../src/db/person-key.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const onCitus = Boolean(process.env.TEST_CITUS_WORKERS);
const EVENTS = onPostgres ? 3000 : 20;

describe('query limits', () => {
  let ctx: TestContext;
  let tenant: Tenant;

  before(async () => {
    ctx = await setupTestApp({
      config: {
        statementTimeoutMs: { default: 60_000, analytics: 500 },
        // One heavy request per key at once and no queue: a second is refused at once.
        heavyRequests: { perKey: 1, perProject: 1, perProcess: 2, queueLength: 0, queueWaitMs: 0 },
      },
    });
    tenant = await makeTenant(ctx.deps.db);
    await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, properties, person_properties, timestamp)
      select ${tenant.project.id}::integer, gen_random_uuid(), 'e' || (g % 7), 'd' || g, null, ${personlessKeySql(sql`'d' || g`)}, '{}', '{}', now() - g * interval '1 minute'
      from generate_series(1, ${EVENTS}::integer) g`.execute(ctx.deps.db);
  });
  after(() => ctx.close());

  /** Statements still running on this database, but for the one asking. */
  async function running(): Promise<number> {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`.execute(ctx.deps.db);
    return rows[0].n;
  }

  it("takes a heavy slot: with the key's one slot held, a query is refused with concurrency_limited", async () => {
    const key = await ctx.deps.db
      .selectFrom('personal_api_keys')
      .select('id')
      .where('user_id', '=', tenant.owner.id)
      .executeTakeFirstOrThrow();
    const held = await ctx.app.heavySlots.acquire({ key: key.id, project: String(tenant.project.id) });
    try {
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/api/projects/${tenant.project.id}/query/`,
        headers: tenant.headers,
        payload: { query: { kind: 'HogQLQuery', query: 'select count() from events' } },
      });
      assert.equal(response.statusCode, 429, response.body);
      assert.equal(response.json().code, 'concurrency_limited');
    } finally {
      held.release();
    }
    assert.deepEqual(ctx.app.heavySlots.stats, { running: 0, waiting: 0 });
  });

  it('ends a triple cross join of events with query_timeout, cancelled by PostgreSQL', async () => {
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${tenant.project.id}/query/`,
      headers: tenant.headers,
      payload: {
        query: { kind: 'HogQLQuery', query: 'select count() from events a cross join events b cross join events c' },
      },
    });
    if (!onPostgres) {
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json().results, [[EVENTS ** 3]]);
      return;
    }
    assert.equal(response.statusCode, 504, response.body);
    assert.equal(response.json().code, 'query_timeout');
    // Cancelled by the server: nothing of it is left running (on Citus the workers' parts end with it).
    for (let i = 0; i < 50 && (await running()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await running(), 0);
  });

  it('aggregates a grouped count where the events are: on Citus on the workers, not on the coordinator', async () => {
    const { compiled } = compileHogQLQuery(
      { db: ctx.deps.db, teamId: tenant.project.id, timezone: 'UTC', now: new Date() },
      { query: 'select event, count() from events group by event' },
    );
    const query = shareParameters(compiled.sql.compile(ctx.deps.db));
    const { rows } = await ctx.deps.db.executeQuery<Record<string, string>>(
      CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
    );
    const plan = rows.map((row) => Object.values(row)[0]).join('\n');
    if (!onCitus) {
      assert.match(plan, /Aggregate/, plan);
      return;
    }
    // The distributed plan: one task per shard, and each task's own plan aggregates its shard's rows.
    assert.match(plan, /Custom Scan \(Citus Adaptive\)/, plan);
    const [coordinator, workers] = plan.split(/Tasks Shown:[^\n]*\n/);
    assert.ok(workers, plan);
    assert.match(coordinator, /Task Count: (\d+)/);
    assert.ok(Number(/Task Count: (\d+)/.exec(coordinator)?.[1]) > 1, plan);
    assert.match(workers, /(Hash|Group)Aggregate|Aggregate/, plan);
    assert.match(workers, /Scan on events_\d+/, plan);
  });
});
