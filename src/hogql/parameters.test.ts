import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shareParameters } from './parameters.ts';

describe('shareParameters', () => {
  it('gives equal values of one type and cast one parameter', () => {
    const shared = shareParameters({
      sql: 'select $1::text, $2::text, $3::bigint, $4::text, $5',
      parameters: ['a', 'a', 1, 'b', 'a'],
    });
    assert.equal(shared.sql, 'select $1::text, $1::text, $2::bigint, $3::text, $4');
    assert.deepEqual(shared.parameters, ['a', 1, 'b', 'a']);
  });

  it('keeps a string and a number apart, and the same value under two casts apart', () => {
    const shared = shareParameters({ sql: '$1::text $2::bigint $3::integer $4::bigint', parameters: ['1', 1, 1, 1] });
    assert.equal(shared.sql, '$1::text $2::bigint $3::integer $2::bigint');
    assert.deepEqual(shared.parameters, ['1', 1, 1]);
  });
});
