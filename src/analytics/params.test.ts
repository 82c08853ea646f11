import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boolParam, intParam, jsonParam, mergeParams, pageParams, stringParam } from './params.ts';

const refusalOf = (fn: () => unknown): { attr?: string; detail?: string } => {
  try {
    fn();
  } catch (error) {
    return error as { attr?: string; detail?: string };
  }
  return { attr: 'no error', detail: 'no error' };
};
const attrOf = (fn: () => unknown) => refusalOf(fn).attr;
const detailOf = (fn: () => unknown) => refusalOf(fn).detail;

describe('analytics params', () => {
  it('merges the query with a body, body keys winning', () => {
    assert.deepEqual(mergeParams({ a: '1', b: '2' }, { b: 3 }), { a: '1', b: 3 });
    assert.equal(
      attrOf(() => mergeParams({}, [1, 2])),
      null,
    );
    assert.equal(
      attrOf(() => mergeParams({ search: 'a\u0000b' }, undefined)),
      'search',
    );
    assert.equal(
      attrOf(() => mergeParams({}, { events: [{ id: 'x\u0000' }] })),
      'events',
    );
  });

  it('reads scalars, the last of a repeated key, JSON and booleans', () => {
    assert.equal(stringParam({ a: ['1', '2'] }, 'a'), '2');
    assert.equal(stringParam({ a: '' }, 'a'), undefined);
    assert.deepEqual(jsonParam({ a: '[1]' }, 'a'), [1]);
    assert.deepEqual(jsonParam({ a: [1] }, 'a'), [1]);
    assert.equal(
      attrOf(() => jsonParam({ a: '{' }, 'a')),
      'a',
    );
    assert.equal(boolParam({ a: 'TrUe' }, 'a'), true);
    assert.equal(boolParam({ a: 'falsE' }, 'a'), false);
    assert.equal(
      attrOf(() => boolParam({ a: 'maybe' }, 'a')),
      'a',
    );
  });

  it('reads integers strictly', () => {
    assert.equal(intParam({ a: '-3' }, 'a'), -3);
    for (const bad of ['1.5', 'x', '1e3', '99999999999999999999'])
      assert.equal(
        attrOf(() => intParam({ a: bad }, 'a')),
        'a',
      );
    assert.equal(
      attrOf(() => intParam({ a: '0' }, 'a', { min: 1 })),
      'a',
    );
  });

  it('says the allowed range of an integer that is not one or out of range', () => {
    assert.equal(
      detailOf(() => intParam({ a: 'x' }, 'a')),
      'A valid integer is required.',
    );
    assert.equal(
      detailOf(() => intParam({ a: '1.5' }, 'a', { min: 1 })),
      'A valid integer greater than or equal to 1 is required.',
    );
    assert.equal(
      detailOf(() => intParam({ a: 'x' }, 'a', { min: 0, max: 100 })),
      'A valid integer from 0 to 100 is required.',
    );
    assert.equal(
      detailOf(() => intParam({ a: '-99999999999999999999' }, 'a', { min: 0 })),
      'Ensure this value is greater than or equal to 0.',
    );
    assert.equal(
      detailOf(() => intParam({ a: '99999999999999999999' }, 'a', { min: 0, max: 100 })),
      'Ensure this value is less than or equal to 100.',
    );
    assert.equal(
      detailOf(() => pageParams({ limit: '-1' })),
      'Ensure this value is greater than or equal to 1.',
    );
    assert.equal(
      detailOf(() => pageParams({ offset: 'abc' })),
      'A valid integer greater than or equal to 0 is required.',
    );
  });

  it('pages like every list: default 100, clamp 1000, limit below 1 and negative offset are 400', () => {
    assert.deepEqual(pageParams({}), { limit: 100, offset: 0 });
    assert.deepEqual(pageParams({ limit: '5000', offset: '7' }), { limit: 1000, offset: 7 });
    assert.equal(
      attrOf(() => pageParams({ limit: '0' })),
      'limit',
    );
    assert.equal(
      attrOf(() => pageParams({ offset: '-1' })),
      'offset',
    );
    assert.deepEqual(pageParams({ l: '5', o: '10' }, 'l', 'o'), { limit: 5, offset: 10 });
  });
});
