// The process logger: JSON lines, secrets redacted wherever they could appear.
import pino, { type Logger } from 'pino';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'personal_api_key',
  'api_key',
  'token',
  'value',
  // PGlite's errors carry the statement's bound values (person properties, tokens, key digests).
  'err.params',
];

// A client that puts its key in the query string (`?personal_api_key=phx_…`) must not leak it into
// the request log, which records the URL.
const SECRET_QUERY = /([?&](?:personal_api_key|api_key|apikey|access_token|token)=)[^&#]*/gi;
const PERSONAL_KEY = /phx_[0-9A-Za-z]+/g;

// Most URLs hold neither a query value nor a key: those skip the two replacements.
export const redactUrl = (url: string) =>
  url.includes('=') || url.includes('phx_')
    ? url.replace(SECRET_QUERY, '$1[redacted]').replace(PERSONAL_KEY, 'phx_[redacted]')
    : url;

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** Fastify's request serializer with the URL redacted. */
const serializeRequest = (req: LoggedRequest) => ({
  method: req.method,
  url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
  host: req.host,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest } },
    destination,
  );
}

/**
 * Writes the lines of one turn of the event loop at its end, in one write to `target`, not one
 * write each: under load, many requests complete in a turn. `flush` writes what is pending now.
 */
export function linesPerTurn(target: pino.DestinationStream): pino.DestinationStream & { flush(): void } {
  let pending = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending === '') return;
    const lines = pending;
    pending = '';
    target.write(lines);
  };
  return {
    write(line: string) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

const processDestinations = new Map<number, pino.DestinationStream>();

/**
 * The server's log on stdout or stderr: lines per turn, written synchronously; what a turn logged
 * is written before the process exits (only a SIGKILL can lose it). One per descriptor.
 */
export function processLogDestination(fd: 1 | 2): pino.DestinationStream {
  let destination = processDestinations.get(fd);
  if (!destination) {
    const batched = linesPerTurn(pino.destination({ dest: fd, sync: true }));
    process.on('exit', batched.flush);
    processDestinations.set(fd, (destination = batched));
  }
  return destination;
}
