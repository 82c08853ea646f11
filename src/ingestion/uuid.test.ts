import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUuid, personUuid, uuidV5, uuidV7 } from './uuid.ts';

test('uuidV5 matches the RFC 9562 example (DNS namespace, www.example.com)', () => {
  assert.equal(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'), '2ed6657d-e927-568b-95e1-2665a8aea6a2');
});

test('person uuids are deterministic per team and distinct id', () => {
  assert.equal(personUuid(1, 'abc'), personUuid(1, 'abc'));
  assert.notEqual(personUuid(1, 'abc'), personUuid(2, 'abc'));
  assert.ok(isUuid(personUuid(1, 'abc')));
});

test('uuidV7 carries the time and the version', () => {
  const at = new Date('2026-01-02T03:04:05.678Z');
  const id = uuidV7(at);
  assert.ok(isUuid(id));
  assert.equal(id[14], '7');
  assert.equal(parseInt(id.replace(/-/g, '').slice(0, 12), 16), at.getTime());
});
