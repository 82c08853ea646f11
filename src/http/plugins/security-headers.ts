// The security headers of every answer, chosen by helmet (its defaults, without a content security
// policy: the console's pages send their own). They depend on nothing in the request, so helmet
// runs once, at start, against a recording response, and each request copies the result: helmet's
// Fastify plugin built its middleware anew and ran it on every request, the largest cost of a
// /_health answer after the socket itself. Set when a request arrives, so a route's own hooks and
// handler may still replace one (the SDK scripts' cross-origin-resource-policy).
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/** The headers helmet sets on a response, as name → value. */
export function helmetHeaders(): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
  };
  const middleware = helmet({ contentSecurityPolicy: false }) as unknown as (
    req: object,
    res: object,
    next: (error?: unknown) => void,
  ) => void;
  middleware({}, recorder, (error) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

export function registerSecurityHeaders(app: FastifyInstance) {
  const headers = helmetHeaders();
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
