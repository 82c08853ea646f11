// The query endpoint's boundary: whatever the text, a query reads this project's rows of events,
// persons and person_distinct_ids and nothing else. Two projects; every attempt below runs as the
// first, and the second's markers never appear in an answer, its rows stay where they were, and no
// error shows PostgreSQL's text or herd's SQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { makeEvent } from '../helpers/analytics-factories.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant } from '../helpers/factories.ts';

const SECRET = 'secret-of-b';

describe('query escapes', () => {
  let ctx: TestContext;
  let a: Tenant;
  let b: Tenant;
  let bPersonUuid: string;

  before(async () => {
    ctx = await setupTestApp();
    const db = ctx.deps.db;
    a = await makeTenant(db);
    b = await makeTenant(db);
    // The same distinct ids in both projects: a join on them must still stay in A.
    const mine = await makePerson(db, a.project.id, {
      distinctIds: ['shared-1'],
      properties: { email: 'a@example.com' },
    });
    const theirs = await makePerson(db, b.project.id, {
      distinctIds: ['shared-1'],
      properties: { email: `${SECRET}@example.com` },
    });
    bPersonUuid = theirs.uuid;
    await makeEvent(db, a.project.id, mine, 'mine', '2024-01-01T00:00:00Z', { note: 'a' });
    await makeEvent(db, b.project.id, theirs, SECRET, '2024-01-01T00:00:00Z', { note: SECRET });
  });
  after(() => ctx.close());

  const query = (text: string, values?: Record<string, unknown>) =>
    ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${a.project.id}/query/`,
      headers: a.headers,
      payload: { query: { kind: 'HogQLQuery', query: text, ...(values && { values }) } },
    });

  /** Runs the query as A: 200 or 400, never B's rows, never a database message or herd's SQL. */
  async function attempt(text: string, values?: Record<string, unknown>) {
    const response = await query(text, values);
    assert.ok([200, 400].includes(response.statusCode), `${text}\n${response.statusCode} ${response.body}`);
    assert.ok(!response.body.includes(SECRET), `${text} showed B's data: ${response.body}`);
    assert.ok(!response.body.includes(bPersonUuid), `${text} showed B's person: ${response.body}`);
    if (response.statusCode === 400) {
      const { detail } = response.json();
      assert.doesNotMatch(
        detail,
        /\$\d|team_id = |syntax error at or near|relation "|ERROR:|pg_catalog\.|t\dp?\./,
        `${text}: ${detail}`,
      );
    }
    return response;
  }
  const refused = async (text: string, pattern?: RegExp, values?: Record<string, unknown>) => {
    const response = await attempt(text, values);
    assert.equal(response.statusCode, 400, `${text} ran: ${response.body}`);
    if (pattern) assert.match(response.json().detail, pattern, text);
  };
  const answers = async (text: string, expected: unknown[][], values?: Record<string, unknown>) => {
    const response = await attempt(text, values);
    assert.equal(response.statusCode, 200, `${text}: ${response.body}`);
    assert.deepEqual(response.json().results, expected, text);
  };

  it("never shows another project's rows, whatever team_id predicate the query writes", async () => {
    await answers(`select count() from events where team_id = ${b.project.id}`, [[0]]);
    await answers(`select count() from events where team_id = ${b.project.id} or 1 = 1`, [[1]]);
    await answers(`select count() from events e where e.team_id != ${a.project.id}`, [[0]]);
    await answers('select team_id from events', [[a.project.id]]);
    await answers(`select count() from persons where team_id in (${a.project.id}, ${b.project.id})`, [[1]]);
    await answers('select count() from events where team_id = {t}', [[0]], { t: b.project.id });
    await answers('select event, properties.note from events', [['mine', 'a']]);
    await answers('select count() from person_distinct_ids', [[1]]);
  });

  it('keeps every table of joins, subqueries and IN in this project', async () => {
    await answers('select count() from events e join person_distinct_ids d on d.distinct_id = e.distinct_id', [[1]]);
    await answers('select count() from events e cross join persons p', [[1]]);
    await answers("select p.properties.email from persons p left join events e on e.distinct_id = 'shared-1'", [
      ['a@example.com'],
    ]);
    await answers(`select count() from (select * from (select * from events where team_id = ${b.project.id}) x) y`, [
      [0],
    ]);
    await answers('select count() from (select * from (select event from events) x) y', [[1]]);
    await answers(
      "select count() from events where distinct_id in (select distinct_id from person_distinct_ids where person.properties.email like '%secret%')",
      [[0]],
    );
    await answers("select count() from persons where id in (select person_id from events where event != 'mine')", [
      [0],
    ]);
    await answers('select person.properties.email from events', [['a@example.com']]);
  });

  it('reaches no other table, schema or catalog, however it is quoted or spelt', async () => {
    for (const table of [
      'pg_catalog.pg_user',
      'pg_user',
      'information_schema.tables',
      'pg_tables',
      'pg_stat_activity',
      'users',
      'personal_api_keys',
      'teams',
      'cohorts',
      'raw_persons',
      'public.events',
      'pg_catalog.pg_authid',
    ])
      await refused(`select * from ${table}`);
    for (const quoted of [
      '"pg_user"',
      '`pg_user`',
      '"public"."events"',
      '`events; drop table teams`',
      '"events""; drop table teams; --"',
      '"EVENTS"',
      'EVENTS',
      '"persons" p, "users"',
    ])
      await refused(`select count() from ${quoted}`);
    await answers('select count() from "events"', [[1]]);
    await answers('select count() from `events`', [[1]]);
    await refused('select person_key from events', /Unable to resolve field: person_key/);
    await refused('select e.person_properties from events e');
    await refused('select id from events');
    await refused('select version, is_deleted from persons');
    await refused('select current_user');
    await refused('select session_user from events');
  });

  it('calls no database function outside its list', async () => {
    const calls = [
      "pg_read_file('/etc/passwd')",
      "current_setting('is_superuser')",
      "set_config('statement_timeout', '0', false)",
      'pg_sleep(10)',
      "dblink('host=127.0.0.1', 'select 1')",
      'version()',
      'pg_backend_pid()',
      "pg_ls_dir('.')",
      "lo_import('/etc/passwd')",
      "query_to_xml('select * from users', true, true, '')",
      "nextval('events_id_seq')",
      'txid_current()',
      'pg_terminate_backend(1)',
      "herd_regex_match('a', 'a')",
      'gen_random_uuid()',
      'pg_catalog.pg_sleep(1)',
      "to_regclass('users')",
      'toString.constructor()',
      'constructor()',
      '__proto__()',
      'hasOwnProperty()',
    ];
    for (const call of calls) await refused(`select ${call}`);
    await refused('select 1 from events where pg_sleep(1) is null');
    await refused('select cast(1 as int)');
    await refused("select 'a'::text");
  });

  it('runs one SELECT only: no second statement, no other statement, comments carry nothing', async () => {
    await refused('select 1; select 2', /one SELECT/);
    await refused('select 1; drop table events', /one SELECT/);
    await refused('drop table events', /Only a SELECT/);
    await refused('copy events to stdout', /Only a SELECT/);
    await refused("copy (select 1) to program 'id'");
    await refused('insert into events (event) values (1)');
    await refused('update persons set properties = null');
    await refused('with x as (select 1) select * from x');
    await refused('select 1 union all select 2', /UNION/);
    await refused('select * from events for update');
    await refused('set statement_timeout = 0');
    await refused('begin');
    await refused('explain select 1');
    await answers('select 1 -- ; drop table events', [[1]]);
    await answers('select 1 /* ; drop table events */', [[1]]);
    await answers('select 1;', [[1]]);
    await refused('select 1 /* unclosed', /comment is not closed/);
    await refused('select 1 ;; select 2');
  });

  it('keeps strings strings: quotes, backslashes and dollar quoting stay in the value', async () => {
    await answers("select 'x''; drop table events; --'", [["x'; drop table events; --"]]);
    await answers("select 'a\\'; select 1; --'", [["a'; select 1; --"]]);
    await answers("select '$$; drop table events; $$'", [['$$; drop table events; $$']]);
    await answers("select count() from events where event = 'mine'' or ''1''=''1'", [[0]]);
    await answers("select count() from events where properties['note''] or 1=1 --'] = 'a'", [[0]]);
    await refused("select 'unclosed", /string is not closed/);
    await answers("select '\\u0000'", [['u0000']]);
  });

  it('binds placeholder values: SQL in a value is only a value', async () => {
    const injections = [
      "' or 1=1 --",
      "'; drop table events; --",
      `x' union select event from events where team_id = ${b.project.id} --`,
      '$1',
      '\\',
      '"',
    ];
    for (const value of injections) await answers('select count() from events where event = {v}', [[0]], { v: value });
    await answers('select {v}', [[`${SECRET}'`]], { v: `${SECRET}'` }).catch(() => undefined);
    await refused('select {v}', /holds an object/, { v: { toString: 'x' } });
    await refused('select count() from {t}', undefined, { t: 'events' });
    await refused('select {constructor}', /not available/, {});
    await refused('select {__proto__}', /not available/, {});
    await refused('select count() from events where event in {v}', /objects/, { v: [{ a: 1 }] });
    await answers('select count() from events where event in {v}', [[1]], { v: ['mine', "' or 1=1"] });
  });

  it('takes no look-alike letters, invisible characters or control characters outside strings', async () => {
    for (const text of [
      'select ｅvent from events',
      'select \u0435vent from events',
      'select event\u200b from events',
      'select\u00a0event from events',
      'select event from events\u202e',
      'select e\u0301vent from events',
      'ｓｅｌｅｃｔ 1',
    ])
      await refused(text, /Unexpected character/);
    // A NUL is refused before the query is read (herd's input guard on every text).
    await refused('select event from events\u0000', /Null characters/);
    await answers("select 'ｅvent\u200b'", [['ｅvent\u200b']]);
  });

  it('is case-insensitive for keywords and functions only', async () => {
    await answers("SeLeCt CoUnT() FrOm events WhErE event = 'mine'", [[1]]);
    await refused('select EVENT from events', /Did you mean event/);
    await refused('select count() from Events', /Did you mean events/);
  });

  it('answers deep nesting, huge texts and numbers with a 400', async () => {
    await refused(`select ${'('.repeat(5000)}1${')'.repeat(5000)}`, /nests deeper/);
    await refused(`select ${'not '.repeat(5000)}true`, /nests deeper/);
    await refused(`select ${'- '.repeat(5000)}1`, /nests deeper/);
    await refused(`select count() from ${'(select * from '.repeat(200)}events${') x'.repeat(200)}`, /nests deeper/);
    await refused(`select '${'x'.repeat(100_001)}'`, /longer than/);
    // A chain of operators is parsed by a loop but compiled by recursion: its length counts as depth.
    await refused(`select ${Array(20_000).fill('1').join('+')}`, /deeper than 256/);
    await refused(`select 1 from events where ${Array(5_000).fill("event = 'x'").join(' and ')}`, /deeper than 256/);
    await refused('select 99999999999999999999999', /too large/);
    await refused(`select 1e999`, /too large/);
    await answers(`select ${Array.from({ length: 200 }, (_, i) => i).join(' + ')}`, [[19900]]);
  });

  it('holds EventsQuery to the same boundary: its select, where, orderBy, event and personId', async () => {
    const eventsQuery = async (node: Record<string, unknown>) => {
      const response = await ctx.app.inject({
        method: 'POST',
        url: `/api/projects/${a.project.id}/query/`,
        headers: a.headers,
        payload: { query: { kind: 'EventsQuery', after: 'all', ...node } },
      });
      const label = JSON.stringify(node);
      assert.ok([200, 400].includes(response.statusCode), `${label}\n${response.statusCode} ${response.body}`);
      // The rows, not the `hogql` echo: a node may name B's event or person to look for them.
      const shown = response.statusCode === 200 ? JSON.stringify(response.json().results) : response.body;
      assert.ok(!shown.includes(SECRET), `${label} showed B's data: ${shown}`);
      assert.ok(!shown.includes(bPersonUuid), `${label} showed B's person: ${shown}`);
      if (response.statusCode === 400)
        assert.doesNotMatch(response.json().detail, /\$\d|team_id = |syntax error at or near|relation "|ERROR:/, label);
      return response;
    };
    const rows = async (node: Record<string, unknown>, expected: unknown[][]) => {
      const response = await eventsQuery(node);
      assert.equal(response.statusCode, 200, `${JSON.stringify(node)}: ${response.body}`);
      assert.deepEqual(response.json().results, expected, JSON.stringify(node));
    };
    const refusedNode = async (node: Record<string, unknown>) =>
      assert.equal((await eventsQuery(node)).statusCode, 400, JSON.stringify(node));

    await rows({ select: ['event'], where: [`team_id = ${b.project.id} or 1 = 1`] }, [['mine']]);
    await rows({ select: ['count()'], where: [`team_id = ${b.project.id}`] }, [[0]]);
    await rows({ select: ['count()'], event: SECRET }, [[0]]);
    await rows({ select: ['count()'], event: "mine' or '1' = '1" }, [[0]]);
    await rows({ select: ['count()'], personId: bPersonUuid }, [[0]]);
    await rows(
      { select: ['count()'], where: [`distinct_id in (select distinct_id from events where event = '${SECRET}')`] },
      [[0]],
    );
    await refusedNode({ select: ['(select usename from pg_catalog.pg_user limit 1)'] });
    await refusedNode({ select: ['event'], where: ["current_setting('search_path') != ''"] });
    await refusedNode({ select: ['event'], where: ['1 = 1; drop table events'] });
    await refusedNode({ select: ['event'], orderBy: ['timestamp; drop table events'] });
    await refusedNode({ select: ['event'], orderBy: ['pg_sleep(1)'] });
    await refusedNode({ select: ['event from events; select 1'] });
  });

  it("left the other project's rows and every table as they were", async () => {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from events where team_id = ${b.project.id}::integer`.execute(ctx.deps.db);
    assert.equal(rows[0].n, 1);
    const teams = await sql<{ n: number }>`select count(*)::int as n from teams`.execute(ctx.deps.db);
    assert.equal(teams.rows[0].n, 2);
  });
});
