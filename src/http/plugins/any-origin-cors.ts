// CORS for the public surfaces web pages call (the SDK's configuration and its scripts): every
// origin, preflights answered in the hook. The app's single @fastify/cors registration belongs to
// capture (it owns the OPTIONS wildcard route), so these scopes answer for themselves.
import type { FastifyInstance } from 'fastify';

export interface AnyOriginOptions {
  /** Methods a preflight may ask for. */
  methods: string[];
  /**
   * Mirror the caller's Origin and allow credentials, as capture does; otherwise `*`, which a
   * shared cache can keep for every origin.
   */
  mirrorOrigin: boolean;
}

export function allowAnyOrigin(scope: FastifyInstance, options: AnyOriginOptions) {
  const methods = options.methods.join(', ');
  scope.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    // A mirrored answer differs by origin, so a cache must key it by origin, even when there is none.
    if (options.mirrorOrigin) reply.header('vary', 'Origin');
    if (options.mirrorOrigin && origin) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-allow-credentials', 'true');
    } else {
      reply.header('access-control-allow-origin', '*');
    }
    // Scripts and configs are fetched cross-origin by design; helmet's default would refuse them.
    reply.header('cross-origin-resource-policy', 'cross-origin');
    if (request.method !== 'OPTIONS' || !request.headers['access-control-request-method']) return;
    reply.header('access-control-allow-methods', methods);
    const headers = request.headers['access-control-request-headers'];
    if (headers) {
      reply.header('access-control-allow-headers', headers);
      reply.header(
        'vary',
        options.mirrorOrigin ? 'Origin, Access-Control-Request-Headers' : 'Access-Control-Request-Headers',
      );
    }
    reply.header('access-control-max-age', '86400');
    return reply.code(204).header('content-length', '0').send();
  });
}
