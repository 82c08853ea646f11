import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPropertyUpdates, initialProperties } from './person-properties.ts';

const updates = (u: Partial<{ set: object; setOnce: object; unset: string[] }>) => ({
  set: { ...u.set },
  setOnce: { ...u.setOnce },
  unset: u.unset ?? [],
});

test('$set_once only fills undefined keys; a stored null counts as present', () => {
  const before = { a: 1, n: null };
  const after = applyPropertyUpdates(before, updates({ setOnce: { a: 2, n: 3, b: 4 } }));
  assert.deepEqual(after, { a: 1, n: null, b: 4 });
  assert.deepEqual(before, { a: 1, n: null });
});

test('$set wins over $set_once of the same event', () => {
  assert.deepEqual(applyPropertyUpdates({}, updates({ setOnce: { k: 'once' }, set: { k: 'set' } })), { k: 'set' });
});

test('$unset removes keys present before the event, after the sets', () => {
  assert.deepEqual(applyPropertyUpdates({ k: 1 }, updates({ set: { k: 2 }, unset: ['k'] })), {});
  assert.deepEqual(applyPropertyUpdates({}, updates({ set: { k: 2 }, unset: ['k'] })), { k: 2 });
  assert.deepEqual(applyPropertyUpdates({ a: 1 }, updates({ unset: ['missing'] })), { a: 1 });
});

test('no change returns the same object; a change returns a new one', () => {
  const before = { a: 1 };
  assert.equal(applyPropertyUpdates(before, updates({ set: { a: 1 } })), before);
  assert.notEqual(applyPropertyUpdates(before, updates({ set: { o: {} } })), before);
  const withObject = { o: { x: 1 } };
  assert.notEqual(applyPropertyUpdates(withObject, updates({ set: { o: { x: 1 } } })), withObject);
});

test('initial properties: $set over $set_once, $unset ignored', () => {
  assert.deepEqual(initialProperties(updates({ setOnce: { a: 1, b: 1 }, set: { b: 2 }, unset: ['a'] })), {
    a: 1,
    b: 2,
  });
});

test('a "__proto__" key is stored like any other', () => {
  const set = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
  const after = applyPropertyUpdates({}, { set, setOnce: {}, unset: [] });
  assert.deepEqual(Object.keys(after), ['__proto__']);
  assert.equal(Object.getPrototypeOf(after), Object.prototype);
  assert.equal(JSON.stringify(after), '{"__proto__":{"polluted":true}}');
});
