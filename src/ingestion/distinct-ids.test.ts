import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cleanDistinctId, isIllegalDistinctId } from './distinct-ids.ts';

test('cleanDistinctId stringifies, replaces NUL, truncates to 200 and rejects empty', () => {
  assert.equal(cleanDistinctId(23), '23');
  assert.equal(cleanDistinctId({ a: 1 }), '{"a":1}');
  assert.equal(cleanDistinctId('a\u0000b'), 'a\uFFFDb');
  assert.equal(cleanDistinctId('x'.repeat(250)), 'x'.repeat(200));
  assert.equal(cleanDistinctId(''), null);
  assert.equal(cleanDistinctId(null), null);
  assert.equal(cleanDistinctId(undefined), null);
});

test('illegal distinct ids follow the case rules', () => {
  for (const id of [
    'anonymous',
    'Anonymous',
    '"guest"',
    "'null'",
    '   ',
    '',
    'null',
    '0',
    'undefined',
    '[object Object]',
    'NaN',
    'None',
    'none',
    'EMAIL',
    'distinct_id',
  ]) {
    assert.equal(isIllegalDistinctId(id), true, id);
  }
  for (const id of ['nan', 'NULL', 'NONE', 'user-1', '00', 'anon_123']) {
    assert.equal(isIllegalDistinctId(id), false, id);
  }
});
