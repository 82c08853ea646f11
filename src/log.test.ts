import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linesPerTurn } from './log.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('log lines per turn', () => {
  it('writes the lines of one turn together at its end, in order', async () => {
    const writes: string[] = [];
    const destination = linesPerTurn({ write: (text: string) => writes.push(text) });
    destination.write('a\n');
    destination.write('b\n');
    destination.write('c\n');
    assert.deepEqual(writes, []);
    await nextTurn();
    assert.deepEqual(writes, ['a\nb\nc\n']);
    destination.write('d\n');
    await nextTurn();
    assert.deepEqual(writes, ['a\nb\nc\n', 'd\n']);
  });

  it('writes what is pending when flushed, and nothing twice', async () => {
    const writes: string[] = [];
    const destination = linesPerTurn({ write: (text: string) => writes.push(text) });
    destination.write('last words\n');
    destination.flush();
    assert.deepEqual(writes, ['last words\n']);
    await nextTurn();
    destination.flush();
    assert.deepEqual(writes, ['last words\n']);
  });
});
