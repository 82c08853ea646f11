import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../errors.ts';
import { flattenRecord, streamCsv, toCsv, wantsCsv } from './csv.ts';

describe('csv', () => {
  it('flattens nested objects to dotted columns and lists to indexed ones; empty ones vanish', () => {
    assert.deepEqual(flattenRecord({ a: 1, b: { c: 'x', d: [true, null] }, e: [], f: {}, g: false }), {
      a: 1,
      'b.c': 'x',
      'b.d.0': 'True',
      'b.d.1': '',
      g: 'False',
    });
  });

  it('writes a header of the sorted union of columns, quoting as needed', () => {
    const csv = toCsv([
      { b: 'x,y', a: 1 },
      { c: 'line\nbreak', a: 2 },
    ]);
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

  it('neutralizes text cells a spreadsheet would run as formulas, keeping the text; numbers stay numbers', () => {
    const hostile = [
      '=HYPERLINK("http://evil.example/","click")',
      '+1+1',
      '-2+3',
      '@SUM(A1)',
      '\t=1',
      '\r=1',
      '-5',
      '＝1+1',
    ];
    const csv = toCsv(hostile.map((text, n) => ({ n, text })));
    const expected = [
      'n,text',
      `0,"'=HYPERLINK(""http://evil.example/"",""click"")"`,
      "1,'+1+1",
      "2,'-2+3",
      "3,'@SUM(A1)",
      "4,'\t=1",
      `5,"'\r=1"`,
      // A string is text even when it reads as a number.
      "6,'-5",
      "7,'＝1+1",
    ];
    assert.equal(csv, `${expected.join('\n')}\n`);
    // JSON numbers, negative ones included, and harmless text are left as they are.
    assert.equal(
      toCsv([{ a: -5, b: -0.5, c: 'a=b', d: "'=x", e: ' =x', f: false }]),
      "a,b,c,d,e,f\n-5,-0.5,a=b,'=x, =x,False\n",
    );
  });

  it('neutralizes header cells too; a dotted key that starts with a field name is not a formula', () => {
    const csv = toCsv([{ '=cmd': 1, '-x': 2, properties: { '=cmd': '=cmd' } }]);
    assert.equal(csv, "'-x,'=cmd,properties.=cmd\n2,1,'=cmd\n");
  });

  it('streams neutralized cells alike', async () => {
    const records = [
      { id: -1, properties: { name: '=1+1', '@k': '@v' } },
      { id: 2, properties: { name: '-5' } },
    ];
    let text = '';
    for await (const chunk of streamCsv(async function* () {
      yield records;
    }))
      text += String(chunk);
    assert.equal(text, toCsv(records));
    assert.equal(text, "id,properties.@k,properties.name\n-1,'@v,'=1+1\n2,,'-5\n");
  });

  it('decides the format from `format` or Accept', () => {
    assert.equal(wantsCsv({ query: { format: 'csv' }, headers: {} }), true);
    assert.equal(wantsCsv({ query: { format: 'json' }, headers: { accept: 'text/csv' } }), false);
    assert.equal(wantsCsv({ query: {}, headers: { accept: 'application/json, text/csv;q=0.5' } }), true);
    assert.equal(wantsCsv({ query: {}, headers: { accept: '*/*' } }), false);
    assert.throws(
      () => wantsCsv({ query: { format: 'xml' }, headers: {} }),
      (error: unknown) => error instanceof AppError && error.attr === 'format',
    );
  });
});
