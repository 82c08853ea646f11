import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  entriesOf,
  partsOf,
  propertyTypeOf,
  seenInBatch,
  EVENT_PROPERTY,
  PERSON_PROPERTY,
} from './definitions-seen.ts';
import type { PreparedEvent } from './normalize-event.step.ts';

test('a value shows its type as the platform infers it', () => {
  const cases: [unknown, string | null][] = [
    [3, 'Numeric'],
    [-0.5, 'Numeric'],
    [true, 'Boolean'],
    ['FALSE', 'Boolean'],
    ['2026-06-01', 'DateTime'],
    ['2026-06-01T10:00:00Z', 'DateTime'],
    ['2026-06-01 10:00:00.123+02:00', 'DateTime'],
    ['2026-06-01T10', 'String'],
    ['12', 'String'],
    ['hello', 'String'],
    [null, null],
    [{ a: 1 }, null],
    [[1], null],
  ];
  for (const [value, type] of cases) assert.equal(propertyTypeOf(value), type, JSON.stringify(value));
});

const event = (name: string, properties: object, set: object = {}, processPerson = true) =>
  ({
    uuid: 'u',
    uuidGiven: false,
    event: name,
    distinctId: 'd',
    timestamp: new Date(),
    properties,
    updates: { set, setOnce: {}, unset: [] },
    processPerson,
    merge: null,
  }) as unknown as PreparedEvent;

test("a batch's names, keys (first typed value wins) and pairs, as entries", () => {
  const seen = seenInBatch([
    event('a', { k: null, n: 1 }, { email: 'x@example.com' }),
    event('b', { k: 'text' }, { ignored: 1 }, false),
  ]);
  assert.deepEqual([...seen.events], ['a', 'b']);
  assert.deepEqual(
    [...(seen.properties.get(EVENT_PROPERTY) ?? [])],
    [
      ['k', 'String'],
      ['n', 'Numeric'],
    ],
  );
  assert.deepEqual([...(seen.properties.get(PERSON_PROPERTY) ?? [])], [['email', 'String']]);
  const entries = entriesOf(7, seen);
  assert.equal(entries.length, 2 + 3 + 3);
  assert.deepEqual(
    entries.map((entry) => partsOf(entry)).find((parts) => parts.kind === 'ep' && parts.fields[0] === 'b'),
    { teamId: 7, kind: 'ep', fields: ['b', 'k'] },
  );
});
