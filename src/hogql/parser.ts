// Tokens → tree, by recursive descent. One SELECT and nothing after it (a trailing `;` is allowed);
// every other statement, a second one, or a construct herd does not run is an error at its place.
import {
  INTERVAL_UNITS,
  type BinaryOp,
  type Column,
  type Expr,
  type FromItem,
  type IntervalUnit,
  type Join,
  type OrderItem,
  type Select,
} from './ast.ts';
import { checkDepth } from './depth.ts';
import { HogQLError } from './errors.ts';
import { own } from './types.ts';
import { tokenize, type Token } from './tokenizer.ts';

const KEYWORDS = new Set([
  'select',
  'distinct',
  'from',
  'as',
  'join',
  'inner',
  'left',
  'right',
  'full',
  'outer',
  'cross',
  'on',
  'using',
  'where',
  'prewhere',
  'group',
  'by',
  'having',
  'order',
  'asc',
  'desc',
  'limit',
  'offset',
  'and',
  'or',
  'not',
  'in',
  'like',
  'ilike',
  'is',
  'null',
  'true',
  'false',
  'interval',
  'between',
  'case',
  'when',
  'then',
  'else',
  'end',
  'union',
  'with',
  'settings',
  'format',
  'into',
  'sample',
  'array',
  'window',
  'qualify',
  'except',
  'intersect',
  'nulls',
]);

/** How deep expressions and subqueries may nest: a parser's stack is finite, a person's query is not that deep. */
export const MAX_DEPTH = 64;

const COMPARISONS: Record<string, BinaryOp> = {
  '=': '=',
  '==': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

const UNIT_NAMES = new Map<string, IntervalUnit>(
  INTERVAL_UNITS.flatMap((unit) => [
    [unit, unit],
    [`${unit}s`, unit],
  ]),
);

const shown = (token: Token) =>
  token.kind === 'end' ? 'the end of the query' : token.kind === 'string' ? 'a string' : `'${token.text.slice(0, 40)}'`;

class Parser {
  #tokens: Token[];
  #at = 0;
  #depth = 0;

  /** `base`: where the text starts in a longer one (the strings of an EventsQuery), for error offsets. */
  constructor(text: string, base = 0) {
    try {
      this.#tokens = tokenize(text);
    } catch (error) {
      throw error instanceof HogQLError && base !== 0 ? new HogQLError(error.message, error.start + base) : error;
    }
    if (base !== 0) for (const token of this.#tokens) token.start += base;
  }

  get peek(): Token {
    return this.#tokens[this.#at];
  }
  peekAt(ahead: number): Token {
    return this.#tokens[Math.min(this.#at + ahead, this.#tokens.length - 1)];
  }
  next(): Token {
    const token = this.#tokens[this.#at];
    if (token.kind !== 'end') this.#at++;
    return token;
  }
  isKeyword(word: string, token = this.peek): boolean {
    return token.kind === 'name' && token.text.toLowerCase() === word;
  }
  acceptKeyword(word: string): boolean {
    if (!this.isKeyword(word)) return false;
    this.next();
    return true;
  }
  expectKeyword(word: string): Token {
    if (!this.isKeyword(word)) throw this.unexpected(`Expected ${word.toUpperCase()}`);
    return this.next();
  }
  isOp(op: string, token = this.peek): boolean {
    return token.kind === 'op' && token.text === op;
  }
  acceptOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.next();
    return true;
  }
  expectOp(op: string): Token {
    if (!this.isOp(op)) throw this.unexpected(`Expected '${op}'`);
    return this.next();
  }
  unexpected(what: string): HogQLError {
    return new HogQLError(`${what}, found ${shown(this.peek)}.`, this.peek.start);
  }
  enter(start: number) {
    if (++this.#depth > MAX_DEPTH) throw new HogQLError(`The query nests deeper than ${MAX_DEPTH} levels.`, start);
  }
  leave() {
    this.#depth--;
  }

  /** A name that is not a keyword (a quoted name never is). */
  isName(token = this.peek): boolean {
    return token.kind === 'quoted' || (token.kind === 'name' && !KEYWORDS.has(token.text.toLowerCase()));
  }
  name(what: string): Token {
    if (!this.isName()) throw this.unexpected(`Expected ${what}`);
    return this.next();
  }

  statement(): Select {
    if (!this.isKeyword('select')) {
      const first = this.peek;
      if (first.kind === 'name' && !this.isKeyword('with'))
        throw new HogQLError(
          `Only a SELECT query can run here, not ${first.text.slice(0, 40).toUpperCase()}.`,
          first.start,
        );
      if (this.isKeyword('with')) throw new HogQLError('WITH is not supported: use a subquery in FROM.', first.start);
      throw this.unexpected('Expected SELECT');
    }
    const select = this.select();
    this.acceptOp(';');
    if (this.peek.kind !== 'end') {
      if (this.isKeyword('union') || this.isKeyword('except') || this.isKeyword('intersect'))
        throw new HogQLError(
          `${this.peek.text.toUpperCase()} is not supported: one SELECT per query.`,
          this.peek.start,
        );
      throw this.unexpected('Expected the end of the query (one SELECT statement only)');
    }
    return select;
  }

  select(): Select {
    const start = this.expectKeyword('select').start;
    this.enter(start);
    const distinct = this.acceptKeyword('distinct');
    const columns: Column[] = [];
    do columns.push(this.column());
    while (this.acceptOp(','));
    const select: Select = {
      kind: 'select',
      start,
      distinct,
      columns,
      from: null,
      joins: [],
      where: null,
      groupBy: [],
      having: null,
      orderBy: [],
      limit: null,
      offset: null,
    };
    if (this.acceptKeyword('from')) {
      select.from = this.fromItem();
      select.joins = this.joins();
    }
    if (this.isKeyword('prewhere') || this.isKeyword('sample') || this.isKeyword('array'))
      throw new HogQLError(`${this.peek.text.toUpperCase()} is not supported.`, this.peek.start);
    if (this.acceptKeyword('where')) select.where = this.expr();
    if (this.acceptKeyword('group')) {
      this.expectKeyword('by');
      do select.groupBy.push(this.expr());
      while (this.acceptOp(','));
    }
    if (this.acceptKeyword('having')) select.having = this.expr();
    if (this.acceptKeyword('order')) {
      this.expectKeyword('by');
      do select.orderBy.push(this.orderItem());
      while (this.acceptOp(','));
    }
    if (this.acceptKeyword('limit')) {
      select.limit = this.expr();
      if (this.acceptOp(',')) {
        // ClickHouse's LIMIT offset, count.
        select.offset = select.limit;
        select.limit = this.expr();
      }
    }
    if (this.acceptKeyword('offset')) select.offset = this.expr();
    if (this.isKeyword('settings') || this.isKeyword('format') || this.isKeyword('into'))
      throw new HogQLError(`${this.peek.text.toUpperCase()} is not supported.`, this.peek.start);
    this.leave();
    return select;
  }

  column(): Column {
    if (this.isOp('*')) {
      const star = this.next();
      return { expr: { kind: 'star', start: star.start }, alias: null };
    }
    const expr = this.expr();
    return { expr, alias: this.alias() };
  }

  alias(): string | null {
    if (this.acceptKeyword('as')) return this.name('an alias after AS').text;
    if (this.isName()) return this.next().text;
    return null;
  }

  fromItem(): FromItem {
    const start = this.peek.start;
    if (this.acceptOp('(')) {
      const select = this.select();
      this.expectOp(')');
      return { kind: 'subquery', select, alias: this.alias(), start };
    }
    const name = this.name('a table name');
    if (this.isOp('.'))
      throw new HogQLError(
        'A table is named alone, without a schema (events, persons, person_distinct_ids).',
        name.start,
      );
    if (this.isOp('('))
      throw new HogQLError(`Table functions are not supported (${name.text.slice(0, 40)}).`, name.start);
    return { kind: 'table', name: name.text, alias: this.alias(), start };
  }

  joins(): Join[] {
    const joins: Join[] = [];
    for (;;) {
      const start = this.peek.start;
      if (this.acceptOp(',')) {
        joins.push({ type: 'cross', item: this.fromItem(), on: null, start });
        continue;
      }
      if (this.acceptKeyword('cross')) {
        this.expectKeyword('join');
        joins.push({ type: 'cross', item: this.fromItem(), on: null, start });
        continue;
      }
      let type: Join['type'] | null = null;
      if (this.isKeyword('right') || this.isKeyword('full') || this.isKeyword('array'))
        throw new HogQLError(
          `${this.peek.text.toUpperCase()} JOIN is not supported: use LEFT JOIN or INNER JOIN.`,
          start,
        );
      if (this.acceptKeyword('inner')) type = 'inner';
      else if (this.acceptKeyword('left')) {
        this.acceptKeyword('outer');
        type = 'left';
      }
      if (type === null && !this.isKeyword('join')) return joins;
      this.expectKeyword('join');
      const item = this.fromItem();
      if (this.isKeyword('using')) throw new HogQLError('JOIN … USING is not supported: use ON.', this.peek.start);
      this.expectKeyword('on');
      joins.push({ type: type ?? 'inner', item, on: this.expr(), start });
    }
  }

  orderItem(): OrderItem {
    const expr = this.expr();
    let desc = false;
    if (this.acceptKeyword('desc')) desc = true;
    else this.acceptKeyword('asc');
    let nulls: OrderItem['nulls'] = null;
    if (this.acceptKeyword('nulls')) {
      if (this.acceptKeyword('first')) nulls = 'first';
      else if (this.acceptKeyword('last')) nulls = 'last';
      else throw this.unexpected('Expected FIRST or LAST');
    }
    return { expr, desc, nulls };
  }

  expr(): Expr {
    const start = this.peek.start;
    this.enter(start);
    const result = this.or();
    this.leave();
    return result;
  }

  or(): Expr {
    let left = this.and();
    while (this.isKeyword('or')) {
      const start = this.next().start;
      left = { kind: 'binary', op: 'or', left, right: this.and(), start };
    }
    return left;
  }

  and(): Expr {
    let left = this.not();
    while (this.isKeyword('and')) {
      const start = this.next().start;
      left = { kind: 'binary', op: 'and', left, right: this.not(), start };
    }
    return left;
  }

  not(): Expr {
    if (this.isKeyword('not')) {
      const start = this.next().start;
      this.enter(start);
      const operand = this.not();
      this.leave();
      return { kind: 'not', operand, start };
    }
    return this.comparison();
  }

  comparison(): Expr {
    const left = this.additive();
    const token = this.peek;
    const comparison = token.kind === 'op' ? own(COMPARISONS, token.text) : undefined;
    if (comparison) {
      this.next();
      return { kind: 'binary', op: comparison, left, right: this.additive(), start: token.start };
    }
    if (this.isOp('=~'))
      throw new HogQLError('Regular expressions (=~) are not supported: use LIKE or ILIKE.', token.start);
    if (this.acceptKeyword('is')) {
      const negated = this.acceptKeyword('not');
      this.expectKeyword('null');
      return { kind: 'isNull', operand: left, negated, start: token.start };
    }
    const negated =
      this.isKeyword('not') && ['like', 'ilike', 'in', 'between'].some((word) => this.isKeyword(word, this.peekAt(1)));
    if (negated) this.next();
    if (this.acceptKeyword('like'))
      return { kind: 'binary', op: negated ? 'not like' : 'like', left, right: this.additive(), start: token.start };
    if (this.acceptKeyword('ilike'))
      return { kind: 'binary', op: negated ? 'not ilike' : 'ilike', left, right: this.additive(), start: token.start };
    if (this.acceptKeyword('between')) {
      const low = this.additive();
      this.expectKeyword('and');
      return { kind: 'between', operand: left, low, high: this.additive(), negated, start: token.start };
    }
    if (this.acceptKeyword('in'))
      return { kind: 'in', operand: left, list: this.inList(), negated, start: token.start };
    return left;
  }

  inList(): Expr[] | Select {
    if (this.isOp('{')) return [this.primary()];
    this.expectOp('(');
    if (this.isKeyword('select')) {
      const select = this.select();
      this.expectOp(')');
      return select;
    }
    const list: Expr[] = [];
    do list.push(this.expr());
    while (this.acceptOp(','));
    this.expectOp(')');
    return list;
  }

  additive(): Expr {
    let left = this.multiplicative();
    while (this.isOp('+') || this.isOp('-') || this.isOp('||')) {
      const token = this.next();
      left = { kind: 'binary', op: token.text as BinaryOp, left, right: this.multiplicative(), start: token.start };
    }
    return left;
  }

  multiplicative(): Expr {
    let left = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const token = this.next();
      left = { kind: 'binary', op: token.text as BinaryOp, left, right: this.unary(), start: token.start };
    }
    return left;
  }

  unary(): Expr {
    if (this.isOp('-')) {
      const start = this.next().start;
      this.enter(start);
      const operand = this.unary();
      this.leave();
      if (operand.kind === 'literal' && typeof operand.value === 'number')
        return { ...operand, value: -operand.value, start };
      return { kind: 'negate', operand, start };
    }
    if (this.isOp('+')) this.next();
    return this.postfix();
  }

  postfix(): Expr {
    const expr = this.primary();
    while (this.isOp('.') || this.isOp('[')) {
      const token = this.peek;
      if (expr.kind !== 'field')
        throw new HogQLError(`Only a field has parts to pick with '${token.text}'.`, token.start);
      this.next();
      if (token.text === '.') {
        const part = this.peek;
        if (part.kind === 'name' || part.kind === 'quoted') expr.chain.push(this.next().text);
        else if (part.kind === 'number' && /^\d+$/.test(part.text)) expr.chain.push(this.next().text);
        else throw this.unexpected("Expected a name after '.'");
      } else {
        const key = this.peek;
        if (key.kind !== 'string') throw this.unexpected('Expected a string key inside [ ]');
        this.next();
        expr.chain.push(key.text);
        this.expectOp(']');
      }
    }
    return expr;
  }

  primary(): Expr {
    const token = this.peek;
    const start = token.start;
    if (token.kind === 'number') {
      this.next();
      const value = Number(token.text);
      if (!Number.isFinite(value)) throw new HogQLError('The number is too large.', start);
      const float = /[.eE]/.test(token.text);
      if (!float && !Number.isSafeInteger(value)) throw new HogQLError('The integer is too large.', start);
      return { kind: 'literal', value, start, float };
    }
    if (token.kind === 'string') {
      this.next();
      return { kind: 'literal', value: token.text, start };
    }
    if (this.acceptOp('(')) {
      if (this.isKeyword('select')) {
        const select = this.select();
        this.expectOp(')');
        return { kind: 'subquery', select, start };
      }
      const inner = this.expr();
      if (this.isOp(',')) throw new HogQLError('Tuples are not supported outside IN ( … ).', this.peek.start);
      this.expectOp(')');
      return inner;
    }
    if (this.acceptOp('{')) {
      const name = this.peek;
      if (name.kind !== 'name') throw this.unexpected('Expected a placeholder name inside { }');
      this.next();
      const chain = [name.text];
      while (this.acceptOp('.')) chain.push(this.name('a name').text);
      this.expectOp('}');
      return { kind: 'placeholder', name: chain.join('.'), start };
    }
    if (this.isOp('*')) throw new HogQLError("'*' is only allowed as a whole column or in count(*).", start);
    if (token.kind === 'name') {
      const word = token.text.toLowerCase();
      if (word === 'null' || word === 'true' || word === 'false') {
        this.next();
        return { kind: 'literal', value: word === 'null' ? null : word === 'true', start };
      }
      if (word === 'interval') return this.interval();
      if (word === 'case') return this.caseExpr();
      if (
        this.isOp('(', this.peekAt(1)) &&
        (!KEYWORDS.has(word) || word === 'like' || word === 'ilike' || word === 'in' || word === 'not')
      )
        return this.call();
    }
    if (this.isName()) return { kind: 'field', chain: [this.next().text], start };
    throw this.unexpected('Expected an expression');
  }

  call(): Expr {
    const name = this.next();
    this.expectOp('(');
    const args: Expr[] = [];
    const distinct = this.acceptKeyword('distinct');
    if (this.isOp('*') && this.isOp(')', this.peekAt(1))) {
      args.push({ kind: 'star', start: this.next().start });
    } else if (!this.isOp(')')) {
      do args.push(this.expr());
      while (this.acceptOp(','));
    }
    this.expectOp(')');
    if (this.isOp('('))
      throw new HogQLError(
        `Parametric functions such as ${name.text.slice(0, 40)}(…)(…) are not supported.`,
        this.peek.start,
      );
    if (this.isKeyword('over')) throw new HogQLError('Window functions (OVER) are not supported.', this.peek.start);
    return { kind: 'call', name: name.text, args, distinct, start: name.start };
  }

  interval(): Expr {
    const start = this.next().start;
    const count = this.isOp('{') || this.isOp('(') ? this.primary() : this.unary();
    const unitToken = this.peek;
    const unit = unitToken.kind === 'name' ? UNIT_NAMES.get(unitToken.text.toLowerCase()) : undefined;
    if (!unit) throw this.unexpected(`Expected an interval unit (${INTERVAL_UNITS.join(', ')})`);
    this.next();
    return { kind: 'interval', count, unit, start };
  }

  caseExpr(): Expr {
    const start = this.next().start;
    if (!this.isKeyword('when'))
      throw this.unexpected('Expected WHEN (CASE x WHEN … is not supported; write CASE WHEN x = …)');
    const branches: { when: Expr; then: Expr }[] = [];
    while (this.acceptKeyword('when')) {
      const when = this.expr();
      this.expectKeyword('then');
      branches.push({ when, then: this.expr() });
    }
    const otherwise = this.acceptKeyword('else') ? this.expr() : null;
    this.expectKeyword('end');
    return { kind: 'case', branches, otherwise, start };
  }
}

/** Parses a whole query: one SELECT. */
export function parseSelect(text: string): Select {
  const select = new Parser(text).statement();
  checkDepth(select);
  return select;
}

/** One piece of an EventsQuery, read whole (nothing may follow it), its tree no deeper than allowed. */
function parseWhole<T>(text: string, base: number, read: (parser: Parser) => T, exprOf: (value: T) => Expr): T {
  const parser = new Parser(text, base);
  const value = read(parser);
  if (parser.peek.kind !== 'end') throw parser.unexpected('Expected the end of the expression');
  checkDepth(exprOf(value));
  return value;
}

/** Parses one expression with an optional alias (`count() as c`), or `*`; nothing may follow. */
export const parseColumn = (text: string, base = 0): Column =>
  parseWhole(
    text,
    base,
    (parser) => parser.column(),
    (column) => column.expr,
  );

/** Parses one ORDER BY item (`timestamp DESC`). */
export const parseOrderItem = (text: string, base = 0): OrderItem =>
  parseWhole(
    text,
    base,
    (parser) => parser.orderItem(),
    (item) => item.expr,
  );

/** Parses one expression. */
export const parseExpr = (text: string, base = 0): Expr =>
  parseWhole(
    text,
    base,
    (parser) => parser.expr(),
    (expr) => expr,
  );
