// The OpenAPI 3.1 document, generated from the route schemas and their docs (see route-docs.ts),
// and an interactive page over it.
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../wire/page.ts';
import { RATE_LIMITS } from './access.ts';
import { documentRoute, nameSchemas } from './openapi-document.ts';

const { default: ordinary, analytics } = RATE_LIMITS;

const OVERVIEW = `A PostHog-compatible API: organizations, their members and roles; projects and personal API keys;
the persons of a project, with their actions, views and the analytical person views; event capture and
what the SDKs load. Operations are grouped by resource; each says what it does, the scope it needs, who may
call it, how it pages and the errors worth knowing.

**Authentication.** \`Authorization: Bearer phx_…\`: a personal API key (the first comes from the setup link an
empty install prints, \`POST /api/setup/\`, or from \`herd bootstrap\`; \`POST /api/personal_api_keys/\` makes more). Each operation names its scope; \`X:write\` grants \`X:read\` and
\`*\` grants every scope. A key limited to some organizations or projects (\`scoped_organizations\`,
\`scoped_teams\`) gets 403 elsewhere. Capture and the SDK endpoints take the project token instead
(\`phc_…\`: \`api_token\` of \`GET /api/projects/\`).

**Paths** match with or without the trailing slash. \`organization_id\` and \`project_id\` may be \`@current\`:
the key's user's first organization, and that organization's first project.

**Errors.** Every failure answers \`{"type", "code", "detail", "attr"}\` (the \`Error\` schema); \`attr\` names the
field or parameter at fault. Bad input is a 400, never a 500.

**Lists** take \`limit\` (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}) and \`offset\`, and answer
\`{count, next, previous, results}\` with the exact \`count\` and absolute links.

**Rate limits** per key: ${ordinary.burst} requests a minute and ${ordinary.sustained} an hour; the analytical views
${analytics.burst} and ${analytics.sustained} within those (429 with \`Retry-After\` beyond).

**Times** are ISO 8601 in UTC (\`2026-11-22T10:00:00.123Z\`). Captured values (properties, event names, distinct
ids) are returned as stored: treat them as untrusted text.`;

/** The resource groups, in the order the page lists them; only those with operations appear. */
const TAGS = [
  {
    name: 'setup',
    description:
      'The first run of an empty install: the first account, created with the token of the link the server printed.',
  },
  { name: 'organizations', description: "Organizations of the key's user; a new one makes its creator owner." },
  { name: 'members', description: 'Members of an organization and their levels: 1 member, 8 admin, 15 owner.' },
  { name: 'roles', description: 'Roles of an organization and the members attached to them (role memberships).' },
  {
    name: 'projects',
    description: "Projects of the user's organizations. A project's `api_token` (`phc_…`) is what capture takes.",
  },
  {
    name: 'personal_api_keys',
    description: "The key's user's own personal API keys. The value is shown once, at creation.",
  },
  {
    name: 'persons',
    description:
      'The persons of a project: list, retrieve, update and delete them; split them, set and unset properties; their activity, property values, cohorts, properties timeline and queued event deletions.',
  },
  {
    name: 'privacy',
    description:
      "Privacy requests: export everything about one person; delete a person's events while keeping the person; delete or scrub the events of a time range; list and cancel those queued tasks (run by the deletion batch, which also applies each project's `data_retention_days`).",
  },
  {
    name: 'analytics',
    description:
      "The persons behind one point of an insight: trends, stickiness, lifecycle, retention, funnel, funnel correlation and paths, computed from the stored events in the project's timezone.",
  },
  {
    name: 'insights',
    description:
      'The insight aggregates (the numbers whose persons the analytics views list) and saved insights (a name and the filters that draw one).',
  },
  {
    name: 'definitions',
    description:
      "What a project's data holds, kept current by capture: event names, event and person property keys with their types, and an event property's values.",
  },
  {
    name: 'query',
    description:
      "Read-only queries over the project's events and persons: HogQL (`HogQLQuery`) and an events table (`EventsQuery`), compiled to PostgreSQL over this project's rows only (docs/query.md).",
  },
  {
    name: 'cohorts',
    description: 'Cohorts of a project: static (a list of persons) or dynamic (a property filter over persons).',
  },
  {
    name: 'events',
    description: 'The captured events of a project, newest first: filtered, paged by keyset, as JSON or CSV.',
  },
  {
    name: 'capture',
    description: 'Event capture as the PostHog SDKs send it, authenticated by the project token in the body.',
  },
  {
    name: 'sdk',
    description:
      'What the SDKs load: the remote config, feature flags (herd evaluates none) and the posthog-js browser SDK.',
  },
];

export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'herd', version: '0.1.0', description: OVERVIEW },
      tags: TAGS,
      components: {
        securitySchemes: {
          PersonalApiKey: { type: 'http', scheme: 'bearer', description: 'A personal API key (`phx_…`).' },
        },
      },
      security: [{ PersonalApiKey: [] }],
    },
    transform: documentRoute,
    transformObject: nameSchemas,
    // Shared schemas with an $id (the insight answers) appear under that name in components.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/schema/docs',
    uiConfig: { url: '/api/schema/', docExpansion: 'list', defaultModelsExpandDepth: 0 },
  });
  app.get('/api/schema', { schema: { hide: true } }, async () => app.swagger());
}
