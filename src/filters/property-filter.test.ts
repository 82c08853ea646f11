import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors.ts';
import { MAX_FILTER_DEPTH, parsePropertyFilter } from './property-filter.ts';

const rejects = (raw: unknown, pattern: RegExp) =>
  assert.throws(
    () => parsePropertyFilter(raw),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.status, 400);
      assert.equal(error.attr, 'properties');
      assert.match(error.detail, pattern);
      return true;
    },
  );

describe('parsePropertyFilter', () => {
  it('reads a JSON string or a parsed value; a list is an AND group', () => {
    const expected = { type: 'AND', values: [{ key: 'a', value: 1, operator: 'exact', type: 'person' }] };
    assert.deepEqual(parsePropertyFilter('[{"key":"a","value":1}]'), expected);
    assert.deepEqual(parsePropertyFilter([{ key: 'a', value: 1 }]), expected);
  });

  it('keeps nested groups and normalizes cohort filters', () => {
    const node = parsePropertyFilter({
      type: 'OR',
      values: [
        { type: 'cohort', key: 'id', value: '7' },
        { type: 'AND', values: [] },
      ],
    });
    assert.deepEqual(node, {
      type: 'OR',
      values: [
        { key: 'id', value: 7, operator: 'in', type: 'cohort' },
        { type: 'AND', values: [] },
      ],
    });
    assert.deepEqual(parsePropertyFilter([{ type: 'cohort', value: 3, operator: 'not_in' }]), {
      type: 'AND',
      values: [{ key: 'id', value: 3, operator: 'not_in', type: 'cohort' }],
    });
  });

  it('drops the value of is_set and is_not_set', () => {
    assert.deepEqual(parsePropertyFilter([{ key: 'a', operator: 'is_set', value: 'is_set' }]), {
      type: 'AND',
      values: [{ key: 'a', operator: 'is_set', type: 'person' }],
    });
  });

  it("turns numeric operators' values into numbers", () => {
    const node = parsePropertyFilter([{ key: 'a', operator: 'gte', value: ' 2.5 ' }]);
    assert.deepEqual(node, { type: 'AND', values: [{ key: 'a', operator: 'gte', type: 'person', value: 2.5 }] });
  });

  it('rejects malformed input', () => {
    rejects('{', /valid JSON/);
    rejects(null, /must be an object/);
    rejects([{ key: '', value: 1 }], /needs a key/);
    rejects([{ key: 'a', value: 1, operator: 'nope' }], /not supported/);
    rejects([{ key: 'a', value: 1, type: 'element' }], /not supported/);
    rejects([{ key: 'a', value: null }], /needs a value/);
    rejects([{ key: 'a', value: 'x', operator: 'lt' }], /needs a number/);
    rejects([{ key: 'a', value: 'x', operator: 'is_date_before' }], /needs a date/);
    rejects([{ key: 'a', value: '(', operator: 'regex' }], /Invalid regular expression/);
    rejects([{ type: 'cohort', value: 'abc' }], /cohort id/);
    rejects([{ type: 'cohort', value: 1, operator: 'gt' }], /not valid for a cohort/);
  });

  it('limits depth and the number of values', () => {
    let deep: unknown = { key: 'a', value: 1 };
    for (let i = 0; i < MAX_FILTER_DEPTH; i++) deep = { type: 'AND', values: [deep] };
    // 20 nested groups are allowed (the filter inside is no group); a 21st is not.
    assert.doesNotThrow(() => parsePropertyFilter(deep));
    rejects({ type: 'OR', values: [deep] }, /nest at most/);
    rejects([deep], /nest at most/);
    rejects([{ key: 'a', value: Array.from({ length: 10_001 }, (_, i) => i) }], /at most 10000 values/);
    assert.doesNotThrow(() => parsePropertyFilter([{ key: 'a', value: Array.from({ length: 9_999 }, (_, i) => i) }]));
  });
});
