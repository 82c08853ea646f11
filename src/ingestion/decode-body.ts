// Capture bodies as SDKs send them: gzip recognised by its magic bytes
// whatever the headers say, form posts carrying base64 `data=`, then UTF-8 JSON. The size limit
// holds for the decompressed body too, so a small gzip bomb is refused like a large body.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { payloadTooLarge, validationError } from '../errors.ts';
import { parseSanitizedJson } from './sanitize-json.ts';
import { jsonDepth, MAX_JSON_DEPTH } from '../json-shape.ts';

const gunzip = promisify(zlib.gunzip);
const utf8 = new TextDecoder('utf-8', { fatal: true });
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

export const isGzip = (body: Buffer): boolean =>
  body.length >= 3 && body[0] === 0x1f && body[1] === 0x8b && body[2] === 0x08;

async function inflate(body: Buffer, limit: number): Promise<Buffer> {
  try {
    return await gunzip(body, { maxOutputLength: limit });
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) {
      throw payloadTooLarge('The decompressed request body is too large.');
    }
    throw validationError('Failed to decompress the request body (invalid gzip data).');
  }
}

function formData(body: Buffer): Buffer {
  const data = new URLSearchParams(body.toString('latin1')).get('data');
  if (data === null || data === '') throw validationError('The form is missing its data field.', 'data', 'required');
  // Form decoding turns a base64 "+" into a space when the client did not escape it.
  const text = data.replace(/ /g, '+').replace(/[\r\n]/g, '');
  if (!BASE64.test(text)) throw validationError('The data field is not valid base64.', 'data');
  return Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
}

function parseJson(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw validationError('The request body is not valid UTF-8.');
  }
  if (text.trim() === '')
    throw validationError('No data found. Make sure to send the events in the body of a POST request.');
  if (text.length > MAX_JSON_DEPTH * 2 && jsonDepth(text) > MAX_JSON_DEPTH) {
    throw validationError(`The JSON is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  try {
    return parseSanitizedJson(text);
  } catch (error) {
    throw validationError(`JSON parse error - ${(error as Error).message}`);
  }
}

/** The JSON value of a capture body, or a 400/413 AppError saying what is wrong with it. */
export async function decodeCaptureBody(raw: Buffer, contentType: string | undefined, limit: number): Promise<unknown> {
  let body = isGzip(raw) ? await inflate(raw, limit) : raw;
  if ((contentType ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    body = formData(body);
    if (isGzip(body)) body = await inflate(body, limit);
    else if (body.length > limit) throw payloadTooLarge('The decoded request body is too large.');
  }
  return parseJson(body);
}
