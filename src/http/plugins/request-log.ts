// One log line per request at `info`, written when it is answered: method, URL (redacted by the
// logger's serializer), status, response time and the request id (the child logger's `reqId`).
// The line Fastify writes when a request arrives is kept for `debug`, where tracing wants it.
// A route marked `config.probe` (liveness, readiness: what a load balancer polls every few
// seconds) is logged at `debug` when it succeeds, so the polling does not bury the requests.
// Which levels are on is read once, from the process logger the request loggers are children of.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

declare module 'fastify' {
  interface FastifyContextConfig {
    probe?: boolean;
  }
}

/** What the `req` serializer of the process logger reads (log.ts), taken once. */
const requestFields = (request: FastifyRequest) => ({
  method: request.method,
  url: request.url,
  host: request.headers.host,
  ip: request.ip,
  socket: { remotePort: request.socket.remotePort },
});

export class RequestLog extends LogController {
  readonly #debug: boolean;
  readonly #info: boolean;

  constructor(log: Logger) {
    super();
    this.#debug = log.isLevelEnabled('debug');
    this.#info = log.isLevelEnabled('info');
  }

  override incomingRequest(request: FastifyRequest) {
    if (this.#debug) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (error) {
      reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
      return;
    }
    const probe = request.routeOptions.config.probe === true && reply.statusCode < 400;
    if (probe ? !this.#debug : !this.#info) return;
    // Plain values, not the request and reply: their serializers would read getters per field.
    const line = {
      req: requestFields(request),
      res: { statusCode: reply.statusCode },
      responseTime: reply.elapsedTime,
    };
    if (probe) reply.log.debug(line, 'request completed');
    else reply.log.info(line, 'request completed');
  }
}
