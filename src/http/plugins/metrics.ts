// Prometheus metrics: request counts and latency by route and status, plus process defaults.
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function registerMetrics(app: FastifyInstance) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'herd_http_requests_total',
    help: 'HTTP requests answered, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'herd_http_request_duration_seconds',
    help: 'HTTP request latency, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  // The labelled series of each method, route and status, found once: a request then costs two
  // map lookups, not a label object and its key string.
  const series = new Map<string, Map<string, Map<number, { count: Counter.Internal; time: Histogram.Internal<string> }>>>();
  const seriesOf = (method: string, route: string, status: number) => {
    let ofRoute = series.get(route);
    if (!ofRoute) series.set(route, (ofRoute = new Map()));
    let ofMethod = ofRoute.get(method);
    if (!ofMethod) ofRoute.set(method, (ofMethod = new Map()));
    let found = ofMethod.get(status);
    if (!found) {
      const labels = { method, route, status: String(status) };
      ofMethod.set(status, (found = { count: requests.labels(labels), time: latency.labels(labels) }));
    }
    return found;
  };

  app.addHook('onResponse', (request, reply, done) => {
    const found = seriesOf(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
    found.count.inc();
    found.time.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
