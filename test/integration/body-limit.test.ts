// A body over the limit, sent by a plain node:http client that is still writing it, gets the 413
// envelope every time (herd reads and throws away the rest before answering); a body far past
// the limit, or one that never ends, is cut off after a bounded read.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

const MiB = 1024 * 1024;

interface Outcome {
  status: number | null;
  body: string;
  error: string | null;
  written: number;
}

interface Upload {
  path: string;
  headers?: Record<string, string>;
  /** Bytes to send; Infinity writes until the server stops the client (or `cap` is reached). */
  size: number;
  chunk: number;
  /** Content-Length declared (else chunked transfer encoding). */
  declared?: number | null;
  cap?: number;
}

describe('bodies over the limit', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let port: number;

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  after(() => ctx.close());

  /** Streams the body in chunks, as fast as the socket takes them, and reports how it ended. */
  function upload(spec: Upload): Promise<Outcome> {
    return new Promise((resolve) => {
      const outcome: Outcome = { status: null, body: '', error: null, written: 0 };
      const declared = spec.declared === undefined ? spec.size : spec.declared;
      const request = http.request({
        host: '127.0.0.1',
        port,
        path: spec.path,
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          ...(declared === null ? {} : { 'content-length': String(declared) }),
          ...spec.headers,
        },
      });
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      request.on('response', (response) => {
        outcome.status = response.statusCode ?? null;
        response.setEncoding('utf8');
        response.on('data', (text: string) => (outcome.body += text));
        response.on('end', settle);
        response.on('error', settle);
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        outcome.error = error.code ?? error.message;
        // An answer already received stays the outcome; else there is none.
        if (outcome.status === null) settle();
      });
      request.on('close', () => setTimeout(settle, 50));
      const block = Buffer.alloc(spec.chunk, 0x78);
      const cap = spec.cap ?? Infinity;
      const write = () => {
        while (!request.destroyed && outcome.written < spec.size && outcome.written < cap) {
          const length = Math.min(spec.chunk, spec.size - outcome.written);
          outcome.written += length;
          if (!request.write(length === spec.chunk ? block : block.subarray(0, length)))
            return void request.once('drain', write);
        }
        if (!request.destroyed && outcome.written >= spec.size) request.end();
      };
      write();
    });
  }

  const apiPath = () => `/api/organizations/${tenant.organization.id}/roles/`;
  const cases = (): { path: string; size: number; limit: number; headers?: Record<string, string> }[] => [
    ...[2 * MiB + 1, 2.5 * MiB, 5 * MiB, 7.5 * MiB].map((size) => ({ path: '/e/', size, limit: 2 * MiB })),
    { path: '/i/v0/e/', size: 3 * MiB, limit: 2 * MiB },
    { path: '/capture/', size: 5 * MiB, limit: 2 * MiB },
    { path: '/flags/?v=2', size: 2.5 * MiB, limit: 2 * MiB },
    { path: '/batch/', size: 21 * MiB, limit: 20 * MiB },
    ...[MiB + 1, 2.5 * MiB, 3.5 * MiB].map((size) => ({ path: apiPath(), size, limit: MiB, headers: tenant.headers })),
  ];

  it('answers 413 in the envelope to a client still writing, every time, with or without a declared length', async () => {
    const failures: string[] = [];
    let answered = 0;
    for (let round = 0; round < 4; round++) {
      for (const { path, size, limit, headers } of cases()) {
        assert.ok(size > limit && size <= 4 * limit, 'the case is within the drained bound');
        // The /batch/ case is large: fewer repeats of it.
        if (path === '/batch/' && round > 1) continue;
        for (const declared of [size, null]) {
          for (const chunk of [16 * 1024, MiB]) {
            const outcome = await upload({ path, headers, size, chunk, declared });
            const label = `${path} ${size} bytes in ${chunk}-byte chunks, ${declared === null ? 'chunked' : 'content-length'}`;
            if (outcome.status !== 413) {
              failures.push(`${label}: ${outcome.status ?? outcome.error}`);
              continue;
            }
            assert.deepEqual(
              JSON.parse(outcome.body),
              {
                type: 'invalid_request',
                code: 'payload_too_large',
                detail: 'Request body is too large.',
                attr: null,
              },
              label,
            );
            answered++;
          }
        }
      }
    }
    assert.deepEqual(failures, [], `${failures.length} uploads got no 413 (${answered} did)`);
    assert.ok(answered > 100);
    // The server is still healthy.
    assert.equal((await upload({ path: '/e/', size: 2, chunk: 2 })).status, 400);
  });

  it('cuts off an endless body and one declared far past the bound, after a bounded read', async () => {
    // Whatever the client manages to write beyond the bound sits in socket buffers (a few MiB on loopback).
    const slack = 16 * MiB;
    for (const { path, limit, headers } of [
      { path: '/e/', limit: 2 * MiB },
      { path: apiPath(), limit: MiB, headers: tenant.headers },
    ]) {
      const endless = await upload({ path, headers, size: Infinity, chunk: 64 * 1024, declared: null, cap: 256 * MiB });
      assert.ok(endless.written < 4 * limit + slack, `${path}: the endless body was read for ${endless.written} bytes`);
      assert.ok(endless.status === 413 || endless.error !== null, `${path}: the endless body was answered or cut off`);
      const declared = await upload({
        path,
        headers,
        size: 512 * MiB,
        chunk: 64 * 1024,
        declared: 512 * MiB,
        cap: 256 * MiB,
      });
      assert.ok(
        declared.written < slack,
        `${path}: a body declared past the bound was read for ${declared.written} bytes`,
      );
    }
    assert.equal((await upload({ path: '/e/', size: 2, chunk: 2 })).status, 400);
  });
});
