// One log line per request at `info`, written when it is answered: method, URL (redacted by the
// logger's serializer), status, response time and the request id (the child logger's `reqId`).
// The line Fastify writes when a request arrives is kept for `debug`, where tracing wants it.
// Which levels are on is read once, from the process logger the request loggers are children of.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

export class RequestLog extends LogController {
  readonly #arrivals: boolean;
  readonly #completions: boolean;

  constructor(log: Logger) {
    super();
    this.#arrivals = log.isLevelEnabled('debug');
    this.#completions = log.isLevelEnabled('info');
  }

  override incomingRequest(request: FastifyRequest) {
    if (this.#arrivals) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else if (this.#completions) reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
