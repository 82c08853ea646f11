// The query endpoint under random and mutated HogQL: every answer is 200 or 400 (never 500), and
// no answer holds the other project's rows. Sized to run in seconds on each database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { OPERATORS as TOKEN_OPERATORS } from '../../src/hogql/tokenizer.ts';
import { makeEvent } from '../helpers/analytics-factories.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant, type Tenant } from '../helpers/factories.ts';

const SECRET = 'fuzz-secret-of-b';
const RUNS = Number(process.env.HERD_QUERY_FUZZ_RUNS ?? 150);

const FIELDS = [
  'event',
  'distinct_id',
  'uuid',
  'timestamp',
  'created_at',
  'properties',
  'properties.$browser',
  "properties['a b']",
  'person_id',
  'person.id',
  'person.properties.email',
  'person.created_at',
  'team_id',
  'e.event',
  'p.id',
  'x',
  'id',
  'is_identified',
];
const TABLES = [
  'events',
  'persons',
  'person_distinct_ids',
  'events e',
  'persons p',
  'pg_user',
  '(select event, distinct_id from events) s',
];
const FUNCTIONS = [
  'count',
  'sum',
  'avg',
  'min',
  'max',
  'uniq',
  'toInt',
  'toFloat',
  'toString',
  'toDate',
  'toDateTime',
  'toStartOfDay',
  'lower',
  'length',
  'concat',
  'coalesce',
  'ifNull',
  'if',
  'countIf',
  'dateDiff',
  'now',
  'today',
  'pg_sleep',
  'like',
];
const OPERATORS = ['=', '!=', '<', '>=', '+', '-', '*', '/', '%', 'and', 'or', 'like', 'ilike', 'not like', '||'];
const LITERALS = [
  "'Chrome'",
  "'2024-01-01'",
  "'x''y'",
  '1',
  '0',
  '-3',
  '2.5',
  'null',
  'true',
  '{v}',
  '{s}',
  '{list}',
  'interval 1 day',
  `'${SECRET}'`,
];
// Every operator the tokenizer reads, and pieces of SQL and text that break quoting or smuggle.
const NOISE = [
  ...TOKEN_OPERATORS,
  '--',
  '/*',
  '*/',
  "'",
  '"',
  '`',
  'select',
  'from',
  'where',
  'union',
  'join',
  'on',
  'group by',
  'order by',
  'limit',
  'offset',
  'not',
  'in',
  'is null',
  '\u200b',
  'е',
  '\\',
  '$1',
  '::text',
  'team_id',
  'pg_catalog.',
  'drop table events',
];

const expr: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...FIELDS),
    fc.constantFrom(...LITERALS),
    fc.tuple(tie('expr'), fc.constantFrom(...OPERATORS), tie('expr')).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc
      .tuple(fc.constantFrom(...FUNCTIONS), fc.array(tie('expr'), { maxLength: 3 }))
      .map(([name, args]) => `${name}(${args.join(', ')})`),
    tie('expr').map((a) => `${a} is not null`),
    fc
      .tuple(tie('expr'), fc.array(tie('expr'), { minLength: 1, maxLength: 3 }))
      .map(([a, list]) => `${a} in (${list.join(', ')})`),
    tie('expr').map((a) => `not ${a}`),
  ),
})).expr;

// Mostly well-formed pieces over events, so that many generated queries run.
const EVENT_FIELDS = [
  'event',
  'distinct_id',
  'timestamp',
  'properties.$browser',
  'person.properties.email',
  'person_id',
];
const simple = fc.oneof(
  fc.constantFrom(...EVENT_FIELDS),
  fc
    .tuple(
      fc.constantFrom('event', 'distinct_id', 'properties.$browser', 'person.properties.email'),
      fc.constantFrom('=', '!=', 'like', 'ilike'),
      fc.constantFrom("'Chrome'", "'%a%'", '{v}', '{s}', `'${SECRET}'`),
    )
    .map(([f, op, v]) => `${f} ${op} ${v}`),
  fc.constantFrom(
    'count()',
    'uniq(distinct_id)',
    "countIf(event = '$pageview')",
    'toStartOfDay(timestamp)',
    'timestamp > now() - interval 30 day',
    'lower(event)',
    'length(distinct_id) > 1',
  ),
);
const piece = fc.oneof({ weight: 4, arbitrary: simple }, { weight: 1, arbitrary: expr });

const queryText = fc
  .record({
    distinct: fc.boolean(),
    columns: fc.array(fc.oneof({ weight: 4, arbitrary: piece }, { weight: 1, arbitrary: fc.constant('*') }), {
      minLength: 1,
      maxLength: 3,
    }),
    table: fc.oneof(
      { weight: 6, arbitrary: fc.constant('events') },
      { weight: 3, arbitrary: fc.constantFrom(...TABLES) },
    ),
    join: fc.option(fc.tuple(fc.constantFrom('join', 'left join', 'cross join'), fc.constantFrom(...TABLES), expr), {
      nil: undefined,
    }),
    where: fc.option(piece, { nil: undefined }),
    groupBy: fc.option(fc.constantFrom('1', 'event', 'all'), { nil: undefined }),
    orderBy: fc.option(fc.tuple(piece, fc.constantFrom('asc', 'desc', '')), { nil: undefined }),
    limit: fc.option(fc.nat({ max: 60_000 }), { nil: undefined }),
  })
  .map((q) =>
    [
      `select ${q.distinct ? 'distinct ' : ''}${q.columns.join(', ')} from ${q.table}`,
      q.join ? `${q.join[0]} ${q.join[1]}${q.join[0] === 'cross join' ? '' : ` on ${q.join[2]}`}` : '',
      q.where ? `where ${q.where}` : '',
      // "all": every selected column that is not an aggregate, so that grouped queries are valid.
      q.groupBy === undefined
        ? ''
        : `group by ${q.groupBy === 'all' ? q.columns.map((_, i) => i + 1).join(', ') : q.groupBy}`,
      q.orderBy ? `order by ${q.orderBy[0]} ${q.orderBy[1]}` : '',
      q.limit !== undefined ? `limit ${q.limit}` : '',
    ].join(' '),
  );

const SEEDS = [
  'select event, count() from events group by event order by count() desc',
  "select person.properties.email, count() from events where timestamp > now() - interval 7 day and properties.$browser = 'Chrome' group by 1",
  'select p.id, count() from events e inner join persons p on p.id = e.person_id group by p.id having count() > 1',
  "select distinct_id from person_distinct_ids where person_id in (select id from persons where properties.email like '%@example.com')",
  'select toStartOfDay(timestamp), uniq(distinct_id) from events where event = {v} group by 1 limit 10 offset 2',
];

// Queries that mostly run: fields of events, conditions that are conditions, grouped when they aggregate.
const plausible = fc
  .record({
    fields: fc.uniqueArray(fc.constantFrom(...EVENT_FIELDS), { minLength: 1, maxLength: 3 }),
    aggregate: fc.option(
      fc.constantFrom('count()', 'uniq(distinct_id)', "countIf(event = '$pageview')", 'max(timestamp)'),
      { nil: undefined },
    ),
    where: fc.array(
      fc
        .tuple(
          fc.constantFrom('event', 'distinct_id', 'properties.$browser', 'person.properties.email'),
          fc.constantFrom('=', '!=', 'like', 'ilike', 'in'),
          fc.constantFrom("'Chrome'", "'%a%'", '{v}', '{s}', `'${SECRET}'`, '{list}'),
        )
        .map(([f, op, v]) => (op === 'in' ? `${f} in (${v})` : `${f} ${op} ${v}`)),
      { maxLength: 2 },
    ),
    order: fc.boolean(),
    limit: fc.option(fc.nat({ max: 60_000 }), { nil: undefined }),
  })
  .map((q) => {
    const columns = [...q.fields, ...(q.aggregate ? [q.aggregate] : [])];
    return [
      `select ${columns.join(', ')} from events`,
      q.where.length ? `where ${q.where.join(' and ')}` : '',
      q.aggregate ? `group by ${q.fields.map((_, i) => i + 1).join(', ')}` : '',
      q.order ? 'order by 1 desc' : '',
      q.limit !== undefined ? `limit ${q.limit}` : '',
    ].join(' ');
  });

const mutated = fc
  .tuple(
    fc.constantFrom(...SEEDS),
    fc.array(
      fc.tuple(
        fc.constantFrom('insert', 'delete', 'replace'),
        fc.nat(),
        fc.nat({ max: 12 }),
        fc.oneof(fc.constantFrom(...NOISE), fc.string({ maxLength: 4, unit: 'grapheme' })),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  )
  .map(([seed, edits]) => {
    let text = seed;
    for (const [kind, at, length, token] of edits) {
      const position = at % (text.length + 1);
      if (kind === 'insert') text = `${text.slice(0, position)} ${token} ${text.slice(position)}`;
      else if (kind === 'delete') text = text.slice(0, position) + text.slice(position + length);
      else text = `${text.slice(0, position)}${token}${text.slice(position + length)}`;
    }
    return text;
  });

describe('query fuzz', () => {
  let ctx: TestContext;
  let a: Tenant;
  let b: Tenant;
  const seen = { 200: 0, 400: 0 };

  before(async () => {
    ctx = await setupTestApp();
    a = await makeTenant(ctx.deps.db);
    b = await makeTenant(ctx.deps.db);
    const mine = await makePerson(ctx.deps.db, a.project.id, {
      distinctIds: ['d1'],
      properties: { email: 'a@example.com' },
    });
    const theirs = await makePerson(ctx.deps.db, b.project.id, { distinctIds: ['d1'], properties: { email: SECRET } });
    await makeEvent(ctx.deps.db, a.project.id, mine, '$pageview', '2024-01-01T00:00:00Z', {
      $browser: 'Chrome',
      'a b': '1',
    });
    await makeEvent(ctx.deps.db, b.project.id, theirs, SECRET, '2024-01-01T00:00:00Z', { $browser: SECRET });
  });
  after(() => ctx.close());

  async function check(text: string) {
    const response = await ctx.app.inject({
      method: 'POST',
      url: `/api/projects/${a.project.id}/query/`,
      headers: a.headers,
      payload: {
        query: { kind: 'HogQLQuery', query: text, values: { v: '$pageview', s: "'; select 1 --", list: ['a', 1] } },
      },
    });
    assert.ok(
      response.statusCode === 200 || response.statusCode === 400,
      `${text}\n→ ${response.statusCode} ${response.body}`,
    );
    seen[response.statusCode as 200 | 400]++;
    if (response.statusCode === 200) {
      const { results } = response.json();
      assert.ok(!JSON.stringify(results).includes(SECRET) || text.includes(SECRET), `${text} showed B's rows`);
    }
  }

  it('answers generated queries with 200 or 400', async () => {
    await fc.assert(fc.asyncProperty(queryText, check), { numRuns: RUNS });
  });

  it('answers plausible queries with 200 or 400', async () => {
    await fc.assert(fc.asyncProperty(plausible, check), { numRuns: RUNS });
  });

  it('answers mutated queries with 200 or 400', async () => {
    await fc.assert(fc.asyncProperty(mutated, check), { numRuns: RUNS });
  });

  it('ran both kinds of answer', () => {
    // The generators reach the database: some queries run, some are refused.
    assert.ok(seen[200] > 10 && seen[400] > 10, JSON.stringify(seen));
  });
});
