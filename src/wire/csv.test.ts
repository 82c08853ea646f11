import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors.ts';
import { flattenRecord, streamCsv, toCsv, wantsCsv } from './csv.ts';

describe('csv', () => {
  it('flattens nested objects to dotted columns and lists to indexed ones; empty ones vanish', () => {
    assert.deepEqual(flattenRecord({ a: 1, b: { c: 'x', d: [true, null] }, e: [], f: {}, g: false }), {
      a: '1',
      'b.c': 'x',
      'b.d.0': 'True',
      'b.d.1': '',
      g: 'False',
    });
  });

  it('writes a header of the sorted union of columns, quoting as needed', () => {
    const csv = toCsv([{ b: 'x,y', a: 1 }, { c: 'line\nbreak', a: 2 }]);
    assert.equal(csv, 'a,b,c\n1,"x,y",\n2,,"line\nbreak"\n');
    assert.equal(toCsv([]), '');
  });

  it('streams the same text, with or without known columns', async () => {
    const chunks = [[{ b: 1 }], [{ a: { z: 2 } }]];
    const read = async (stream: NodeJS.ReadableStream) => {
      let text = '';
      for await (const chunk of stream) text += String(chunk);
      return text;
    };
    const source = async function* () {
      for (const chunk of chunks) yield chunk;
    };
    assert.equal(await read(streamCsv(source)), toCsv(chunks.flat()));
    assert.equal(await read(streamCsv(source, async () => ['b', 'a.z'])), toCsv(chunks.flat()));
  });

  it('decides the format from `format` or Accept', () => {
    assert.equal(wantsCsv({ query: { format: 'csv' }, headers: {} }), true);
    assert.equal(wantsCsv({ query: { format: 'json' }, headers: { accept: 'text/csv' } }), false);
    assert.equal(wantsCsv({ query: {}, headers: { accept: 'application/json, text/csv;q=0.5' } }), true);
    assert.equal(wantsCsv({ query: {}, headers: { accept: '*/*' } }), false);
    assert.throws(() => wantsCsv({ query: { format: 'xml' }, headers: {} }), (error: unknown) => error instanceof AppError && error.attr === 'format');
  });
});
