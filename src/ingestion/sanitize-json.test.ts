import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSanitizedJson, sanitizeJsonValue } from './sanitize-json.ts';

test('NUL and unpaired surrogates become U+FFFD, in keys and values', () => {
  assert.deepEqual(parseSanitizedJson('{"a\\u0000": ["x\\u0000y", "\\ud800"], "ok": "\\ud83d\\ude00"}'), {
    'a\uFFFD': ['x\uFFFDy', '\uFFFD'],
    ok: '😀',
  });
});

test('clean values come back unchanged', () => {
  const at = new Date();
  assert.deepEqual(sanitizeJsonValue({ n: 1, b: true, z: null, s: 'plain', at }), {
    n: 1,
    b: true,
    z: null,
    s: 'plain',
    at,
  });
});
