// Generators of hostile input for the fuzz harness: query values, JSON bodies, property-filter
// trees and capture payloads (gzip broken or truncated, base64 that is not, shapes that are wrong).
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import fc from 'fast-check';

export const SQL_FRAGMENTS = [
  "' OR 1=1 --",
  "'; drop table persons; --",
  '") or ("1"="1',
  '1; select pg_sleep(5)',
  '$$',
  '\\',
  "\\'",
  '%',
  '_',
  '*',
  "properties->>'email'",
  'null',
  'NULL',
  'true',
  '1e308',
  '-0',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '-1',
  '0x10',
  '\u0000',
  '\u202e',
  '😀',
  'ǅ',
  '\ud800',
  '{{7*7}}',
  '${7*7}',
  '../../etc/passwd',
  '<script>alert(1)</script>',
];

export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
];

const hostileString = fc.oneof(
  fc.constantFrom(...SQL_FRAGMENTS, ...PROTOTYPE_KEYS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

/** Percent-encoding that survives lone surrogates (encodeURIComponent throws on them). */
export const encode = (text: string) => encodeURIComponent(text.toWellFormed());

/** A query value, already in wire form: percent-encoded, or raw junk the parser must survive. */
export const queryValue = fc.oneof(
  { weight: 4, arbitrary: hostileString.map(encode) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%00', '%E0%A4%A', '[]', '{}', '', '+', '%2B', '1,2,3') },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => encode(JSON.stringify(v) ?? 'null')) },
);

/** A query string over the operation's own parameters and random ones, repeated names included. */
export function queryString(names: string[]) {
  const name = fc.oneof(
    fc.constantFrom(...names, 'limit', 'offset', 'format', '__proto__', 'constructor'),
    fc.string({ maxLength: 10 }).map(encode),
  );
  return fc
    .array(fc.tuple(name, queryValue), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&'));
}

/** JSON text: arbitrary values, prototype keys (only expressible as text), deep and wide shapes. */
export function jsonBody(valid: unknown) {
  const base = valid && typeof valid === 'object' && !Array.isArray(valid) ? (valid as Record<string, unknown>) : {};
  const keys = Object.keys(base);
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...(keys.length ? keys : ['name'])), fc.jsonValue({ maxDepth: 3 }))
        .map(([k, v]) => JSON.stringify({ ...base, [k]: v })),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.jsonValue({ maxDepth: 2 }))
        .map(([k, v]) =>
          `{${JSON.stringify(k)}: ${JSON.stringify(v)}, ${JSON.stringify(base).slice(1)}`.replace(/, \}$/, '}'),
        ),
    },
    { weight: 1, arbitrary: fc.integer({ min: 50, max: 5000 }).map((n) => '['.repeat(n) + ']'.repeat(n)) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...(keys.length ? keys : ['name'])), fc.integer({ min: 1000, max: 900_000 }))
        .map(([k, n]) => JSON.stringify({ ...base, [k]: 'y'.repeat(n) })),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        '{',
        '{"a":',
        'null',
        '[]',
        '"x"',
        '1',
        'nul',
        '{"a":1}}',
        '\u0000',
        '{"a":"\\ud800"}',
      ),
    },
  );
}

const OPERATORS = [
  'exact',
  'is_not',
  'icontains',
  'not_icontains',
  'regex',
  'not_regex',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_set',
  'is_not_set',
  'is_date_exact',
  'is_date_before',
  'is_date_after',
];

/** Property-filter trees: valid-looking ones most of the time, every field hostile some of it. */
export const filterTree = fc.letrec<{ tree: unknown; leaf: unknown; group: unknown }>((tie) => ({
  leaf: fc.record(
    {
      key: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('email', 'name', 'plan', '$browser', 'nested.key') },
        { weight: 1, arbitrary: hostileString },
      ),
      value: fc.oneof(
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom(...SQL_FRAGMENTS),
        fc.array(fc.constantFrom(...SQL_FRAGMENTS), { maxLength: 5 }),
      ),
      operator: fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...OPERATORS) },
        { weight: 1, arbitrary: hostileString },
      ),
      type: fc.constantFrom('person', 'cohort', 'event', 'AND', undefined, 5),
    },
    { requiredKeys: ['key'] },
  ),
  group: fc.record({
    type: fc.constantFrom('AND', 'OR', 'and', 'XOR', 1, null),
    values: fc.array(tie('tree'), { maxLength: 4 }),
  }),
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('leaf'),
    tie('group'),
    fc.jsonValue({ maxDepth: 2 }),
  ),
})).tree;

/** A filter JSON with prototype keys, which JSON.stringify of an object literal cannot produce. */
export const prototypeFilter = fc
  .tuple(fc.constantFrom(...PROTOTYPE_KEYS), fc.constantFrom(...PROTOTYPE_KEYS))
  .map(
    ([a, b]) =>
      `[{"key": "${a}", "value": {"${b}": {"polluted": true}}, "${a}": {"polluted": true}, "operator": "exact"}]`,
  );

/** `depth` nested groups around one valid filter. */
export function nestedFilter(depth: number): unknown {
  let tree: unknown = { key: 'email', value: 'a@example.com', type: 'person' };
  for (let i = 0; i < depth; i++) tree = { type: i % 2 ? 'AND' : 'OR', values: [tree] };
  return tree;
}

export const wideFilter = (values: number) => [
  { key: 'email', value: Array.from({ length: values }, (_, i) => `v${i}@x.io`), operator: 'exact', type: 'person' },
];

/** Parsed JSON whose object carries the prototype's method names as data: String() and `${}` throw on them. */
export const METHOD_NAMED_VALUES = ['{"toString": "", "valueOf": ""}', '[{"toString": "", "valueOf": ""}]'];

type JsonPath = (string | number)[];

/** Every place in a JSON value, the value itself included (the empty path). */
export function jsonPaths(value: unknown, at: JsonPath = []): JsonPath[] {
  const out = [at];
  if (Array.isArray(value)) value.forEach((item, index) => out.push(...jsonPaths(item, [...at, index])));
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) out.push(...jsonPaths(item, [...at, key]));
  return out;
}

/** `value` as JSON text with the value at `path` replaced by the JSON text `replacement` (which an object literal may not express). */
export function jsonWith(value: unknown, path: JsonPath, replacement: string, at: JsonPath = []): string {
  if (at.length === path.length && at.every((part, i) => part === path[i])) return replacement;
  if (Array.isArray(value))
    return `[${value.map((item, index) => jsonWith(item, path, replacement, [...at, index])).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonWith(item, path, replacement, [...at, key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface CapturePayload {
  label: string;
  body: Buffer | string;
  headers: Record<string, string>;
}

const gzip = (text: string) => zlib.gzipSync(Buffer.from(text));

/** Capture requests that must all be refused (or stored whole): never a 500, never a partial write. */
export function capturePayload(token: string) {
  const event = fc.record(
    {
      event: fc.oneof(fc.constantFrom('$pageview', '$identify', '$set'), hostileString, fc.jsonValue({ maxDepth: 1 })),
      distinct_id: fc.oneof(
        fc.string({ maxLength: 300 }),
        fc.integer(),
        fc.constantFrom('', null, 'undefined', 'null', '0', '[object Object]'),
      ),
      properties: fc.oneof(
        fc.dictionary(hostileString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        fc.jsonValue({ maxDepth: 1 }),
      ),
      uuid: fc.oneof(fc.uuid(), hostileString),
      timestamp: fc.oneof(
        fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
        hostileString,
      ),
    },
    { requiredKeys: [] },
  );
  const batchJson = fc.array(event, { maxLength: 4 }).map((batch) => JSON.stringify({ api_key: token, batch }));
  const json =
    (label: string) =>
    (body: string): CapturePayload => ({ label, body, headers: { 'content-type': 'application/json' } });
  return fc.oneof(
    { weight: 3, arbitrary: batchJson.map(json('events of any shape')) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => json('arbitrary JSON')(JSON.stringify(v))) },
    {
      weight: 1,
      arbitrary: fc
        .jsonValue({ maxDepth: 2 })
        .map((v) => json('batch of the wrong type')(JSON.stringify({ api_key: token, batch: v }))),
    },
    {
      weight: 1,
      arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes): CapturePayload => ({
        label: 'broken gzip',
        body: Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), Buffer.from(bytes)]),
        headers: { 'content-type': 'application/json' },
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(batchJson, fc.double({ min: 0, max: 0.95, noNaN: true }))
        .map(([text, cut]): CapturePayload => {
          const zipped = gzip(text);
          return {
            label: 'truncated gzip',
            body: zipped.subarray(0, Math.floor(zipped.length * cut)),
            headers: { 'content-type': 'application/octet-stream' },
          };
        }),
    },
    {
      weight: 1,
      arbitrary: hostileString.map((junk): CapturePayload => ({
        label: 'invalid base64 form body',
        body: `data=${encode(junk)}!!`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })),
    },
    {
      weight: 1,
      arbitrary: hostileString.map((junk): CapturePayload => ({
        label: 'base64 of a non-JSON form body',
        body: `data=${encode(Buffer.from(junk).toString('base64'))}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 100_000, max: 3_000_000 })
        .map((n) =>
          json('giant string')(
            JSON.stringify({ api_key: token, event: 'x'.repeat(n), distinct_id: 'giant', properties: {} }),
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', 'null', '[]', '[null]', '{"batch":[]}', 'garbage').map(json('malformed')),
    },
  );
}

/** A small body that decompresses to 64 MiB: must be refused (413) without being inflated whole. */
export function gzipBomb(token: string): CapturePayload {
  const head = `{"api_key":"${token}","event":"bomb","distinct_id":"bomb","properties":{"x":"`;
  const zipped = zlib.gzipSync(
    Buffer.concat([Buffer.from(head), Buffer.alloc(64 * 1024 * 1024, 0x61), Buffer.from('"}}')]),
    { level: 9 },
  );
  return { label: 'gzip bomb', body: zipped, headers: { 'content-type': 'application/json' } };
}

export const uniqueUuid = () => crypto.randomUUID();
