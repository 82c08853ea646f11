import assert from 'node:assert/strict';
import http, { type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Readable } from 'node:stream';
import { drainBoundOf, drainRequest, type DrainBound } from './drain-body.ts';

describe('drainRequest', () => {
  let server: http.Server;
  let port: number;
  let bound: DrainBound;
  const results: boolean[] = [];

  before(async () => {
    // Reads nothing itself: drains each request, then answers how it went.
    server = http.createServer((request, response) => {
      void drainRequest(request, bound).then((ended) => {
        results.push(ended);
        response.writeHead(413, { connection: 'close' }).end(String(ended));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );

  /** Sends `parts` (then ends the body unless `stall`), answers the body the server sent or the client error. */
  function send(parts: Buffer[], options: { declared?: number; stall?: boolean } = {}): Promise<string> {
    return new Promise((resolve) => {
      const request = http.request({
        host: '127.0.0.1',
        port,
        method: 'POST',
        agent: false,
        headers: options.declared ? { 'content-length': String(options.declared) } : {},
      });
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve(text));
      });
      request.on('error', (error: NodeJS.ErrnoException) => resolve(`error ${error.code}`));
      for (const part of parts) request.write(part);
      if (!options.stall) request.end();
    });
  }

  it('reads a body to its end within the bound', async () => {
    bound = { bytes: 1024 * 1024, ms: 5_000 };
    assert.equal(await send([Buffer.alloc(300_000), Buffer.alloc(300_000)]), 'true');
  });

  it('gives up on a body longer than the bound, or declared longer, or that stalls', async () => {
    bound = { bytes: 64 * 1024, ms: 5_000 };
    results.length = 0;
    await send([Buffer.alloc(1024 * 1024)]);
    await send([Buffer.alloc(1024)], { declared: 10 * 1024 * 1024, stall: true });
    bound = { bytes: 1024 * 1024, ms: 200 };
    await send([Buffer.alloc(1024)], { stall: true });
    assert.deepEqual(results, [false, false, false]);
  });

  it('answers at once for a request whose body was read to its end', async () => {
    const request = Readable.from([Buffer.from('{"a":')]) as unknown as IncomingMessage;
    for await (const chunk of request) assert.ok(chunk);
    assert.equal(request.complete, undefined);
    // Waiting for an end that came already would give up at the bound: false.
    assert.equal(await drainRequest(request, { bytes: 1024, ms: 1_000 }), true);
  });

  it('bounds a route by a few times its limit', () => {
    assert.equal(drainBoundOf(2 * 1024 * 1024).bytes, 8 * 1024 * 1024);
    assert.ok(drainBoundOf(1).ms > 0);
  });
});
