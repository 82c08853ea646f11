// The OpenAPI 3.1 document, generated from the route schemas, and an interactive page over it.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'herd',
        version: '0.1.0',
        description: 'Organization roles, persons, capture and person analytics — a PostHog-compatible API.',
      },
      components: {
        securitySchemes: { PersonalApiKey: { type: 'http', scheme: 'bearer', description: 'A personal API key (phx_…)' } },
      },
      security: [{ PersonalApiKey: [] }],
    },
    // Shared schemas with an $id (the insight answers) appear under that name in components.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/api/schema/docs', uiConfig: { url: '/api/schema/' } });
  app.get('/api/schema', { schema: { hide: true } }, async () => app.swagger());
}
