import { sql } from 'kysely';
import type { RouteModule } from './index.ts';

export const healthRoutes: RouteModule = (app, deps) => {
  app.get('/_health', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/_ready', { schema: { hide: true } }, async (request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      return { status: 'ok' };
    } catch (error) {
      request.log.warn({ err: error }, 'database not ready');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
};
