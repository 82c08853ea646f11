// buildApp(deps) → the Fastify instance, fully wired. Reads no environment; listens nowhere.
import crypto from 'node:crypto';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Deps } from './deps.ts';
import { registerAccess } from './http/plugins/access.ts';
import { registerErrorHandling, renderFrameworkError } from './http/plugins/errors.ts';
import { registerInputGuards } from './http/plugins/input-guards.ts';
import { registerMetrics, type FleetMetrics } from './http/plugins/metrics.ts';
import { registerOpenApi } from './http/plugins/openapi.ts';
import { RequestLog } from './http/plugins/request-log.ts';
import { registerRequestLimits } from './http/plugins/request-limits.ts';
import { registerSecurityHeaders } from './http/plugins/security-headers.ts';
import { openSharedLimits } from './http/plugins/shared-limits.ts';
import { lazySchemaCompilers } from './http/lazy-schema-compilers.ts';
import type { App } from './http/route-module.ts';
import { routeModules } from './http/routes/index.ts';

export const API_BODY_LIMIT = 1024 * 1024;

/** `beforeReady` lets a test add hooks once every route is registered (a ready app takes none). */
export async function buildApp(
  deps: Deps,
  options: { beforeReady?: (app: App) => void; fleetMetrics?: FleetMetrics | null } = {},
): Promise<App> {
  const app = Fastify({
    loggerInstance: deps.log as FastifyBaseLogger,
    logController: new RequestLog(deps.log),
    bodyLimit: API_BODY_LIMIT,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    return503OnClosing: true,
    // verbose: schema errors carry the offending value, which the error messages quote.
    ajv: { customOptions: { verbose: true } },
    // Each route's validator and serializer are compiled at its first request, not at start.
    schemaController: { compilersFactory: lazySchemaCompilers() },
    // Router faults (an undecodable URL, an over-long path parameter) answer in the envelope too.
    frameworkErrors: renderFrameworkError,
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerErrorHandling(app, deps);
  registerInputGuards(app);
  registerSecurityHeaders(app);
  // Once closing, a response still in flight ends its connection: left idle, a keep-alive socket
  // would hold a SIGTERM'd process open for the client's keep-alive time (up to 72 s).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  await registerOpenApi(app);
  registerMetrics(app, options.fleetMetrics ?? null);
  const shared = openSharedLimits(app, deps);
  registerRequestLimits(app, deps, shared);
  await registerAccess(app, deps, shared);
  for (const register of routeModules) await register(app, deps);
  options.beforeReady?.(app);
  await app.ready();
  return app;
}
