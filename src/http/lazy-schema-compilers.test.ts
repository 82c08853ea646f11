import assert from 'node:assert/strict';
import { test } from 'node:test';
import fastJson from 'fast-json-stringify';
import { Type } from 'typebox';
import { Person } from '../modules/persons/persons.schemas.ts';
import { Nullable } from '../wire/schemas.ts';
import { freeFormAsAny } from './lazy-schema-compilers.ts';

test('free-form objects become schemas of any value; the rest is kept', () => {
  const schema = Type.Object({
    free: Type.Record(Type.String(), Type.Unknown(), { description: 'captured' }),
    open: Type.Object({}, { additionalProperties: true }),
    maybe: Nullable(Type.Record(Type.String(), Type.Unknown()), 'or null'),
    typed: Type.Record(Type.String(), Type.Integer()),
    shaped: Type.Object({ a: Type.String() }, { additionalProperties: true }),
  });
  const rewritten = freeFormAsAny(schema) as { properties: Record<string, Record<string, unknown>> };
  assert.deepEqual(rewritten.properties.free, { description: 'captured' });
  assert.deepEqual(rewritten.properties.open, {});
  assert.ok(JSON.stringify(rewritten.properties.maybe).includes('"type":"null"'));
  assert.ok(!JSON.stringify(rewritten.properties.maybe).includes('patternProperties'));
  assert.deepEqual(rewritten.properties.typed, JSON.parse(JSON.stringify(schema.properties.typed)));
  assert.deepEqual(rewritten.properties.shaped, JSON.parse(JSON.stringify(schema.properties.shaped)));
});

test('a page of persons serializes to the same JSON', () => {
  const page = Type.Object({ count: Type.Integer(), results: Type.Array(Person) });
  const hostile = {
    '': 1,
    'a"b': ['\u2028', { '\\': null }],
    __proto__x: { deep: [1.5, true, 'x'] },
    emoji: '🦔',
    number: -0,
    big: 1e21,
  };
  const value = {
    count: 2,
    results: [
      {
        id: 1,
        name: 'a',
        distinct_ids: ['x', 'y"z'],
        properties: hostile,
        created_at: '2026-01-01T00:00:00.000Z',
        uuid: '0190a1b2-5e6f-7a8b-9c0d-1e2f3a4b5c6d',
      },
      {
        id: 2,
        name: 'b',
        distinct_ids: [],
        properties: {},
        created_at: '2026-01-02T00:00:00.000Z',
        uuid: '0190a1b2-5e6f-7a8b-9c0d-1e2f3a4b5c6e',
      },
    ],
  };
  const original = fastJson(JSON.parse(JSON.stringify(page)))(value);
  const faster = fastJson(freeFormAsAny(JSON.parse(JSON.stringify(page))) as object)(value);
  assert.equal(faster, original);
  assert.deepEqual(JSON.parse(faster), JSON.parse(JSON.stringify(value)));
});
