import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonValueText, shownValue } from './json-shape.ts';

// JSON can carry an object whose own "toString" or "valueOf" is not a function: String() throws on it.
const HOSTILE = '{"toString": "", "valueOf": 1}';

test('jsonValueText reads a parsed value as String() would, without calling a method it carries', () => {
  for (const text of ['null', '1', 'true', '"a"', '[1,null,"b",[2,3]]', '{"a":1}', '[]']) {
    assert.equal(jsonValueText(JSON.parse(text)), String(JSON.parse(text)), text);
  }
  assert.throws(() => String(JSON.parse(HOSTILE)), TypeError);
  assert.equal(jsonValueText(JSON.parse(HOSTILE)), '[object Object]');
  assert.equal(jsonValueText(JSON.parse(`[${HOSTILE}, 2]`)), '[object Object],2');
  assert.equal(jsonValueText(JSON.parse('{"__proto__": {"toString": 1}}')), '[object Object]');
});

test('shownValue shows an object or a list as its JSON and any other value as text', () => {
  assert.equal(shownValue('events'), 'events');
  assert.equal(shownValue(12), '12');
  assert.equal(shownValue(null), 'null');
  assert.equal(shownValue(undefined), 'undefined');
  assert.equal(shownValue(JSON.parse(HOSTILE)), '{"toString":"","valueOf":1}');
  assert.equal(shownValue(JSON.parse(`[${HOSTILE}]`)), '[{"toString":"","valueOf":1}]');
});
