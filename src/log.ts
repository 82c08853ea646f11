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

export const redactUrl = (url: string) => url.replace(SECRET_QUERY, '$1[redacted]').replace(PERSONAL_KEY, 'phx_[redacted]');

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
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { req: serializeRequest } }, destination);
}
