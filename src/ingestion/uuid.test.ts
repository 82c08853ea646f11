import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isUuid } from '../wire/ids.ts';
import { monotonicUuidV7, personUuid, uuidV5, uuidV7 } from './uuid.ts';

test('uuidV5 matches the RFC 9562 example (DNS namespace, www.example.com)', () => {
  assert.equal(
    uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'),
    '2ed6657d-e927-568b-95e1-2665a8aea6a2',
  );
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

test('monotonicUuidV7 only grows, within a millisecond and past the counter of a busy one', () => {
  const ids = Array.from({ length: 10_000 }, () => monotonicUuidV7());
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i] > ids[i - 1], `${ids[i - 1]} < ${ids[i]}`);
  assert.ok(ids.every((id) => isUuid(id) && id[14] === '7' && '89ab'.includes(id[19])));
  assert.ok(
    Math.abs(parseInt(ids[0].replace(/-/g, '').slice(0, 12), 16) - Date.now()) < 60_000,
    'carries the wall-clock time',
  );
});
