// CSV responses (`format=csv` or `Accept: text/csv`): nested objects become dotted columns
// (`properties.email`), lists indexed columns (`distinct_ids.0`); the header is the sorted union of
// every row's columns, as the platform's CSV renderer does.
//
// Captured text is hostile and a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab
// or a carriage return as a formula (OWASP's CSV injection): such a text cell, header cells
// included, gets a leading `'` and keeps its text. A JSON number is left as it is (-5 stays -5);
// text that only looks like a number ("-5") is text and gets the `'` too. csv-stringify's
// `escape_formulas` does it (it also covers the full-width ＝＋－＠ some spreadsheets read alike).
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import { validationError } from '../errors.ts';

/** Text, or a JSON number kept a number so that a negative one is not taken for a formula. */
type Cell = string | number;

const CSV_OPTIONS = { header: true, escape_formulas: true } as const;

function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return '';
  // The platform renders Python booleans.
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number') return value;
  return String(value);
}

function flattenInto(out: Record<string, Cell>, prefix: string, value: unknown) {
  if (Array.isArray(value)) {
    value.forEach((item, index) => flattenInto(out, prefix ? `${prefix}.${index}` : String(index), item));
  } else if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    for (const [key, item] of Object.entries(value)) flattenInto(out, prefix ? `${prefix}.${key}` : key, item);
  } else {
    out[prefix] = cellOf(value);
  }
}

/** One record as flat columns; an empty list or object yields no column. */
export function flattenRecord(record: object): Record<string, Cell> {
  const out: Record<string, Cell> = {};
  flattenInto(out, '', record);
  return out;
}

const BATCH_BYTES = 64 * 1024;

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function toCsv(records: readonly object[]): string {
  const rows = records.map(flattenRecord);
  const columns = new Set<string>();
  for (const row of rows) for (const column of Object.keys(row)) columns.add(column);
  const header = [...columns].sort(byCodePoint);
  if (header.length === 0) return '';
  return stringifySync(rows, { ...CSV_OPTIONS, columns: header });
}

/**
 * Every record of `source` as CSV, in constant memory. The header (the union of columns) must be
 * known before the first line: `knownColumns` gives it when the caller can compute it cheaply;
 * otherwise the source is read twice (it must then give the same records both times).
 */
export function streamCsv(
  source: () => AsyncIterable<readonly object[]>,
  knownColumns?: () => Promise<string[]>,
): Readable {
  let writer: ReturnType<typeof stringify> | null = null;
  const output = new Readable({ read: () => void writer?.resume() });
  const run = async () => {
    const columns = new Set<string>(knownColumns ? await knownColumns() : []);
    if (!knownColumns) {
      for await (const chunk of source())
        for (const record of chunk) for (const column of Object.keys(flattenRecord(record))) columns.add(column);
    }
    const header = [...columns].sort(byCodePoint);
    if (header.length === 0) return void output.push(null);
    const lines = stringify({ ...CSV_OPTIONS, columns: header });
    writer = lines;
    // csv-stringify emits one chunk per record; hand them on in ~64 KiB batches, which costs the
    // reply (and the socket) far fewer writes.
    let batch: Buffer[] = [];
    let batched = 0;
    const flush = () => {
      if (batched === 0) return true;
      const data = Buffer.concat(batch, batched);
      batch = [];
      batched = 0;
      return output.push(data);
    };
    lines.on('data', (data: Buffer) => {
      batch.push(data);
      batched += data.length;
      if (batched >= BATCH_BYTES && !flush()) lines.pause();
    });
    const ended = new Promise<void>((resolve, reject) => {
      lines.once('end', () => {
        flush();
        resolve();
      });
      lines.once('error', reject);
    });
    for await (const chunk of source()) {
      for (const record of chunk) {
        if (!lines.write(flattenRecord(record))) await new Promise((resolve) => lines.once('drain', resolve));
      }
    }
    lines.end();
    await ended;
    output.push(null);
  };
  run().catch((error: unknown) => output.destroy(error instanceof Error ? error : new Error(String(error))));
  return output;
}

/** Whether the caller asked for CSV: `format` (csv or json, else 400 attr `format`) or `Accept: text/csv`. */
export function wantsCsv(request: { query: unknown; headers: Record<string, string | string[] | undefined> }): boolean {
  const format = (request.query as Record<string, unknown> | undefined)?.format;
  if (format !== undefined) {
    if (format === 'csv') return true;
    if (format === 'json') return false;
    throw validationError(`"${String(format)}" is not a valid choice.`, 'format', 'invalid_choice');
  }
  const accept = request.headers.accept;
  const values = Array.isArray(accept) ? accept : accept ? [accept] : [];
  return values.some((value) => value.split(',').some((part) => part.trim().toLowerCase().startsWith('text/csv')));
}
