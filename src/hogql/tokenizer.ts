// HogQL text → tokens. Only ASCII letters, digits, `_` and `$` make a name; anything else outside a
// string literal is an error at its position, so no unicode look-alike or control character reaches
// the parser. Comments (`-- …`, `/* … */`) are dropped here: the SQL herd runs is printed from the
// tree, never from the text, so a comment cannot carry anything into it.
import { HogQLError } from './errors.ts';

export type TokenKind = 'name' | 'quoted' | 'string' | 'number' | 'op' | 'end';

export interface Token {
  kind: TokenKind;
  /** A name as written (`quoted`: without its quotes), a string's value, a number's text, an operator. */
  text: string;
  start: number;
}

/** The longest texts first, so `<=` is not read as `<` then `=`. */
export const OPERATORS = [
  '<=>',
  '==',
  '!=',
  '<>',
  '<=',
  '>=',
  '||',
  '=~',
  '<',
  '>',
  '=',
  '+',
  '-',
  '*',
  '/',
  '%',
  '(',
  ')',
  ',',
  '.',
  '[',
  ']',
  '{',
  '}',
  ';',
];

export const MAX_QUERY_LENGTH = 100_000;

const isNameStart = (c: string) => /[A-Za-z_$]/.test(c);
const isNamePart = (c: string) => /[A-Za-z0-9_$]/.test(c);
const isDigit = (c: string) => c >= '0' && c <= '9';

const ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '0': '\0',
  b: '\b',
  f: '\f',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '`': '`',
};

export function tokenize(text: string): Token[] {
  if (text.length > MAX_QUERY_LENGTH)
    throw new HogQLError(`The query is longer than ${MAX_QUERY_LENGTH} characters.`, 0);
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) throw new HogQLError('A comment is not closed (missing */).', i);
      i = close + 2;
      continue;
    }
    const start = i;
    if (isNameStart(c)) {
      while (i < text.length && isNamePart(text[i])) i++;
      tokens.push({ kind: 'name', text: text.slice(start, i), start });
      continue;
    }
    if (isDigit(c) || (c === '.' && isDigit(text[i + 1] ?? ''))) {
      while (i < text.length && isDigit(text[i])) i++;
      if (text[i] === '.' && isDigit(text[i + 1] ?? '')) {
        i++;
        while (i < text.length && isDigit(text[i])) i++;
      }
      if ((text[i] === 'e' || text[i] === 'E') && /[0-9]|[+-][0-9]/.test(text.slice(i + 1, i + 3))) {
        i += text[i + 1] === '+' || text[i + 1] === '-' ? 2 : 1;
        while (i < text.length && isDigit(text[i])) i++;
      }
      if (i < text.length && isNamePart(text[i]))
        throw new HogQLError(`Unexpected character '${text[i]}' in a number.`, i);
      tokens.push({ kind: 'number', text: text.slice(start, i), start });
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      const value = readQuoted(text, i, c);
      i = value.end;
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', text: value.text, start });
      continue;
    }
    const op = OPERATORS.find((candidate) => text.startsWith(candidate, i));
    if (op === undefined) {
      const code = text.codePointAt(i) ?? 0;
      const shown = code >= 0x21 && code <= 0x7e ? `'${c}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
      throw new HogQLError(`Unexpected character ${shown}.`, i);
    }
    tokens.push({ kind: 'op', text: op, start });
    i += op.length;
  }
  tokens.push({ kind: 'end', text: '', start: text.length });
  return tokens;
}

/** A quoted text: the quote doubled or backslash-escaped stands for itself. */
function readQuoted(text: string, from: number, quote: string): { text: string; end: number } {
  let value = '';
  let i = from + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      const next = text[i + 1];
      value += Object.hasOwn(ESCAPES, next) ? ESCAPES[next] : next;
      i += 2;
      continue;
    }
    if (c === quote) {
      if (text[i + 1] === quote) {
        value += quote;
        i += 2;
        continue;
      }
      return { text: value, end: i + 1 };
    }
    value += c;
    i++;
  }
  throw new HogQLError(quote === "'" ? 'A string is not closed.' : 'A quoted name is not closed.', from);
}
