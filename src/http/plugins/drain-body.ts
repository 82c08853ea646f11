// A body refused before it was read to its end (over the limit, a media type no parser takes) is
// answered only once the client has sent the rest, read and thrown away up to a bound. Fastify
// closes such a connection after answering; closed while the client still writes, the socket is
// reset, and an ordinary client (node:http, curl) gets EPIPE or ECONNRESET instead of the answer.
import type { IncomingMessage } from 'node:http';

export interface DrainBound {
  /** The most bytes read and thrown away; a body declared longer is not read at all. */
  bytes: number;
  /** The longest wait for the end of the body. */
  ms: number;
}

// Beyond these the client is cut off (the connection closed under it): an endless or trickling
// body costs the server a few times the route's limit in reading, or a few seconds.
const DRAIN_LIMITS = 4;
const DRAIN_MS = 10_000;

/** How much of a refused body is read before answering, for a route that takes `bodyLimit` bytes. */
export function drainBoundOf(bodyLimit: number): DrainBound {
  return { bytes: DRAIN_LIMITS * bodyLimit, ms: DRAIN_MS };
}

/** Reads and throws away the rest of `request`; answers whether it ended within the bound. */
export function drainRequest(request: IncomingMessage, bound: DrainBound): Promise<boolean> {
  // Read to its end already (a parser that refused the whole body): nothing is left to wait for.
  // `complete` is the socket's word for it, `readableEnded` the stream's (an injected request has
  // only the latter: without it every refused JSON body waited out the bound, 10 s).
  if (request.complete || request.readableEnded) return Promise.resolve(true);
  if (request.destroyed || Number(request.headers['content-length']) > bound.bytes) return Promise.resolve(false);
  return new Promise((resolve) => {
    let read = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      request.off('data', onData).off('end', onEnd).off('close', onClose);
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read > bound.bytes) finish(false);
    };
    const onEnd = () => finish(true);
    const onClose = () => finish(request.complete);
    const timer = setTimeout(() => finish(false), bound.ms);
    // The error listener stays: an aborted request emits 'error' only to listeners it saw when
    // it was destroyed, and one removed in between would make that error unhandled.
    request.on('data', onData).once('end', onEnd).once('close', onClose).on('error', onClose);
    // Whatever arrives once the bound is passed is dropped (the stream keeps flowing) until the
    // connection closes after the answer.
    request.resume();
  });
}
