import assert from 'node:assert/strict';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { AppError } from '../errors.ts';
import { jsonDepth, MAX_JSON_DEPTH } from '../json-shape.ts';
import { decodeCaptureBody } from './decode-body.ts';

const payload = { api_key: 'phc_x', batch: [{ event: 'e', distinct_id: 'd' }] };
const json = Buffer.from(JSON.stringify(payload));

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof AppError);
    return error;
  }
  assert.fail('expected a rejection');
}

test('plain JSON, gzip whatever the content type, and base64 form data (also gzipped)', async () => {
  assert.deepEqual(await decodeCaptureBody(json, 'application/json', 1000), payload);
  assert.deepEqual(await decodeCaptureBody(zlib.gzipSync(json), 'text/plain', 1000), payload);
  const form = Buffer.from(`data=${encodeURIComponent(json.toString('base64'))}`);
  assert.deepEqual(await decodeCaptureBody(form, 'application/x-www-form-urlencoded', 1000), payload);
  const unescaped = Buffer.from(`data=${zlib.gzipSync(json).toString('base64')}&compression=gzip-js`);
  assert.deepEqual(
    await decodeCaptureBody(unescaped, 'application/x-www-form-urlencoded; charset=utf-8', 1000),
    payload,
  );
});

test('a gzip bomb is 413', async () => {
  const bomb = zlib.gzipSync(Buffer.alloc(5_000_000, 0x20));
  assert.ok(bomb.length < 10_000);
  assert.equal((await rejection(decodeCaptureBody(bomb, 'application/json', 1_000_000))).status, 413);
});

test('broken inputs are 400', async () => {
  const broken = zlib.gzipSync(json).subarray(0, 20);
  assert.equal((await rejection(decodeCaptureBody(broken, 'application/json', 1000))).status, 400);
  assert.equal((await rejection(decodeCaptureBody(Buffer.from('{"a":'), 'application/json', 1000))).status, 400);
  assert.equal((await rejection(decodeCaptureBody(Buffer.from([0xff, 0xfe]), 'application/json', 1000))).status, 400);
  assert.equal((await rejection(decodeCaptureBody(Buffer.from(''), 'application/json', 1000))).status, 400);
  const noData = await rejection(decodeCaptureBody(Buffer.from('x=1'), 'application/x-www-form-urlencoded', 1000));
  assert.equal(noData.attr, 'data');
  const badBase64 = await rejection(
    decodeCaptureBody(Buffer.from('data=%%%'), 'application/x-www-form-urlencoded', 1000),
  );
  assert.equal(badBase64.status, 400);
});

test('JSON nested deeper than the limit is 400; at the limit it parses', async () => {
  const nested = (depth: number) => Buffer.from(`${'['.repeat(depth)}"a]\\"[{"${']'.repeat(depth)}`);
  assert.equal(
    (await rejection(decodeCaptureBody(nested(MAX_JSON_DEPTH + 1), 'application/json', 1_000_000))).status,
    400,
  );
  assert.ok(Array.isArray(await decodeCaptureBody(nested(MAX_JSON_DEPTH), 'application/json', 1_000_000)));
  assert.equal(jsonDepth('{"a": [1, {"b": "[[[{{{"}], "c": {}}'), 3);
});
