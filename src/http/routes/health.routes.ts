// Liveness (the process answers) and readiness (the database answers too), outside the API; probes
// (request-log.ts): logged at debug while they succeed.
import { pingDatabase } from '../../db/database.ts';
import type { RouteModule } from '../route-module.ts';

export const healthRoutes: RouteModule = (app, deps) => {
  app.get('/_health', { schema: { hide: true }, config: { probe: true } }, async () => ({ status: 'ok' }));

  app.get('/_ready', { schema: { hide: true }, config: { probe: true } }, async (request, reply) => {
    try {
      await pingDatabase(deps.db);
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not ready');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
};
