// Prometheus metrics: request counts and latency by route and status, plus process defaults.
// The two request metrics are kept here as plain numbers, one record per method, route and status
// found through nested maps: a request costs a few lookups and additions, no label object, key
// string or hash (what prom-client's counters cost on every call). They are rendered when scraped.
import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';

interface MetricValueJson {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}
/** One process's metrics as prom-client's JSON (`getMetricsAsJSON`), for adding up a fleet's (AggregatorRegistry.aggregate). */
export type MetricsJson = { name: string; help: string; type: string; aggregator: string; values: MetricValueJson[] }[];
/** In a worker of `herd serve --workers N` (src/fleet.ts): /metrics adds up every worker's. */
export interface FleetMetrics {
  /** This worker's own metrics, for the primary's collection. */
  attach(own: () => Promise<MetricsJson>): void;
  /** Every worker's metrics added up, rendered. */
  gather(): Promise<string>;
}

const REQUESTS = 'herd_http_requests_total';
const LATENCY = 'herd_http_request_duration_seconds';
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  /** `method="…",route="…",status="…"`, escaped for the exposition format. */
  labels: string;
  /** The same labels as an object (for the JSON a fleet adds up). */
  labelObject: Record<string, string>;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last is past every bound. */
  buckets: Float64Array;
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function render(all: Series[]): string {
  const lines = [
    `# HELP ${REQUESTS} HTTP requests answered, by method, route and status`,
    `# TYPE ${REQUESTS} counter`,
  ];
  for (const series of all) lines.push(`${REQUESTS}{${series.labels}} ${series.count}`);
  lines.push(`# HELP ${LATENCY} HTTP request latency, by method, route and status`, `# TYPE ${LATENCY} histogram`);
  for (const series of all) {
    let cumulative = 0;
    BUCKETS.forEach((bound, index) => {
      cumulative += series.buckets[index];
      lines.push(`${LATENCY}_bucket{le="${bound}",${series.labels}} ${cumulative}`);
    });
    lines.push(`${LATENCY}_bucket{le="+Inf",${series.labels}} ${series.count}`);
    lines.push(`${LATENCY}_sum{${series.labels}} ${series.sum}`, `${LATENCY}_count{${series.labels}} ${series.count}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The two request metrics as prom-client's JSON, summed across processes by the aggregator. */
function asJson(all: Series[]): MetricsJson {
  const latency: MetricValueJson[] = [];
  for (const series of all) {
    let cumulative = 0;
    BUCKETS.forEach((bound, index) => {
      cumulative += series.buckets[index];
      latency.push({
        metricName: `${LATENCY}_bucket`,
        labels: { le: bound, ...series.labelObject },
        value: cumulative,
      });
    });
    latency.push(
      { metricName: `${LATENCY}_bucket`, labels: { le: '+Inf', ...series.labelObject }, value: series.count },
      { metricName: `${LATENCY}_sum`, labels: series.labelObject, value: series.sum },
      { metricName: `${LATENCY}_count`, labels: series.labelObject, value: series.count },
    );
  }
  return [
    {
      name: REQUESTS,
      help: 'HTTP requests answered, by method, route and status',
      type: 'counter',
      aggregator: 'sum',
      values: all.map((series) => ({ labels: series.labelObject, value: series.count })),
    },
    {
      name: LATENCY,
      help: 'HTTP request latency, by method, route and status',
      type: 'histogram',
      aggregator: 'sum',
      values: latency,
    },
  ];
}

export function registerMetrics(app: FastifyInstance, fleet: FleetMetrics | null = null) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const all: Series[] = [];
  const byRoute = new Map<string, Map<string, Map<number, Series>>>();
  const seriesOf = (method: string, route: string, status: number): Series => {
    let ofRoute = byRoute.get(route);
    if (!ofRoute) byRoute.set(route, (ofRoute = new Map()));
    let ofMethod = ofRoute.get(method);
    if (!ofMethod) ofRoute.set(method, (ofMethod = new Map()));
    let series = ofMethod.get(status);
    if (!series) {
      const labels = `method="${escapeLabel(method)}",route="${escapeLabel(route)}",status="${status}"`;
      const labelObject = { method, route, status: String(status) };
      series = { labels, labelObject, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length + 1) };
      ofMethod.set(status, series);
      all.push(series);
    }
    return series;
  };

  app.addHook('onResponse', (request, reply, done) => {
    const series = seriesOf(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode);
    const seconds = reply.elapsedTime / 1000;
    let bucket = 0;
    while (bucket < BUCKETS.length && seconds > BUCKETS[bucket]) bucket++;
    series.buckets[bucket] += 1;
    series.count += 1;
    series.sum += seconds;
    done();
  });

  const own = async () => [...((await registry.getMetricsAsJSON()) as unknown as MetricsJson), ...asJson(all)];
  fleet?.attach(own);
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    if (fleet) return fleet.gather();
    return (await registry.metrics()) + render(all);
  });
}
