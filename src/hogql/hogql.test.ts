// The pure front end: tokens, tree, printing, compiling, and that no text makes it throw anything
// but a HogQLError (which the endpoint turns into a 400 with a line and column).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PostgresQueryCompiler } from 'kysely';
import { compileQuery } from './compiler.ts';
import { describeError, HogQLError } from './errors.ts';
import { parseSelect } from './parser.ts';
import { printSelect } from './printer.ts';
import { tokenize } from './tokenizer.ts';

const OPTIONS = { teamId: 7, timezone: 'UTC', now: new Date('2024-01-01T00:00:00Z'), values: { v: 'x' } };

/** The SQL text and parameters a query compiles to. */
function compiled(text: string) {
  const query = compileQuery(parseSelect(text), OPTIONS);
  return new PostgresQueryCompiler().compileQuery(query.sql.toOperationNode() as never, { queryId: 'q' } as never);
}

function errorOf(text: string): string {
  try {
    compiled(text);
  } catch (error) {
    assert.ok(error instanceof HogQLError, String(error));
    return describeError(error, text);
  }
  assert.fail(`${text} compiled`);
}

describe('hogql', () => {
  it('tokenizes names, strings with escapes, numbers and operators, dropping comments', () => {
    const tokens = tokenize("select `a b`, 'it''s\\n', 1.5e3 -- note\n/* x */ <= != ;");
    assert.deepEqual(
      tokens.map((token) => [token.kind, token.text]),
      [
        ['name', 'select'],
        ['quoted', 'a b'],
        ['op', ','],
        ['string', "it's\n"],
        ['op', ','],
        ['number', '1.5e3'],
        ['op', '<='],
        ['op', '!='],
        ['op', ';'],
        ['end', ''],
      ],
    );
  });

  it('prints what it parsed, so that the print parses to the same print', () => {
    for (const text of [
      "select distinct e.event as name, count() from events e left join persons p on p.id = e.person_id where e.timestamp > now() - interval 7 day and not (e.event in ('a', 'b')) group by 1 having count() > {n} order by 2 desc nulls last limit 5 offset 2",
      "select properties['utm source'], properties.$browser, if(x between 1 and 2, 'y', 'n') from (select 1 as x) s",
      'select case when 1 > 2 then 1 else 2 end, -3, 2 * (3 + 4), 7 % 2, toDate(timestamp) from events',
    ]) {
      const printed = printSelect(parseSelect(text));
      assert.equal(printSelect(parseSelect(printed)), printed);
    }
  });

  it('binds every value and keeps the query text out of the SQL', () => {
    const query = compiled(
      "select event, 'ha''ck' from events where properties['k; drop'] = {v} and distinct_id like '%x%'",
    );
    assert.ok(!query.sql.includes('ha'), query.sql);
    assert.ok(!query.sql.includes('drop'), query.sql);
    assert.ok(!query.sql.includes('%x%'), query.sql);
    assert.ok(
      query.parameters.includes("ha'ck") && query.parameters.includes('k; drop') && query.parameters.includes('x'),
    );
    assert.match(query.sql, /from events where team_id = \$\d+::integer/);
  });

  it('binds the project to every table reference, however deep', () => {
    const query = compiled(
      'select count() from events e join persons p on p.id = e.person_id where e.distinct_id in (select distinct_id from person_distinct_ids where person_id in (select id from persons)) and e.event in (select event from (select event from events) x)',
    );
    const tables = query.sql.match(/from (events|persons|person_distinct_ids) where team_id = \$(\d+)::integer/g) ?? [];
    // Six references in the query, and the person join of each events and distinct-id reference.
    assert.equal(tables.length, 7, query.sql);
    assert.equal((query.sql.match(/from (events|persons|person_distinct_ids)\b/g) ?? []).length, tables.length);
    for (const table of tables) {
      const index = Number(/\$(\d+)/.exec(table)?.[1]);
      assert.equal(query.parameters[index - 1], 7);
    }
  });

  it('says where an error is, with a suggestion', () => {
    assert.equal(
      errorOf('select\n  evnt from events'),
      'Unable to resolve field: evnt. Did you mean event? (line 2, column 3)',
    );
    assert.equal(errorOf('select count( from events'), "Expected an expression, found 'from'. (line 1, column 15)");
    assert.equal(
      errorOf('select uniqq(event) from events'),
      'Unknown function uniqq(). Did you mean uniq? (line 1, column 8)',
    );
    assert.equal(
      errorOf('select 1 from pg_class'),
      'Unknown table `pg_class`. Known: events, persons, person_distinct_ids. (line 1, column 15)',
    );
    assert.equal(
      errorOf('select 1 from events where properties.n > 1'),
      'Cannot compare String with Int64. A property is text: convert it with toInt() or toFloat(). (line 1, column 41)',
    );
  });

  it('refuses a tree deeper than the stack allows before walking it, chains of operators included', () => {
    assert.match(errorOf(`select ${Array(20_000).fill('1').join(' + ')}`), /deeper than 256 levels/);
    assert.match(
      errorOf(`select ${'('.repeat(60)}1${')'.repeat(60)} from events where ${Array(300).fill('true').join(' or ')}`),
      /deeper than 256/,
    );
    assert.doesNotThrow(() => compiled(`select 1 from events where ${Array(200).fill('true').join(' or ')}`));
  });

  it('throws only HogQLError, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.string({ maxLength: 40, unit: 'grapheme' }).map((s) => `select ${s} from events`),
        ),
        (text) => {
          try {
            compiled(text);
          } catch (error) {
            assert.ok(error instanceof HogQLError, `${JSON.stringify(text)}: ${String(error)}`);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
