// The analytical person views, as PostHog's persons API of 2022 to mid-2024 answers them: each
// route parses its request into the view's query module and renders the envelope with an absolute
// `next` link.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Deps } from '../../deps.ts';
import type { ActorsResult, ViewContext } from '../../analytics/actors.ts';
import { funnelActors } from '../../analytics/funnel.query.ts';
import { correlationActors } from '../../analytics/funnel-correlation.query.ts';
import { lifecycleActors } from '../../analytics/lifecycle.query.ts';
import { mergeParams, pageParams, type RawParams } from '../../analytics/params.ts';
import { pathActors } from '../../analytics/path.query.ts';
import { retentionActors } from '../../analytics/retention.query.ts';
import { stickinessActors } from '../../analytics/stickiness.query.ts';
import { trendsActors } from '../../analytics/trends.query.ts';
import { Person } from '../../modules/persons/persons.schemas.ts';
import { toCsv, wantsCsv } from '../../wire/csv.ts';
import type { PageRequest } from '../../wire/page.ts';
import { errorResponses, Nullable, ProjectParams } from '../../wire/schemas.ts';
import { requestBaseUrl } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { sendCsv } from '../route-helpers.ts';
import type { RouteModule } from '../route-module.ts';
const ActorsEnvelope = Type.Object({
  results: Type.Array(Type.Object({ people: Type.Array(Person), count: Type.Integer() })),
  next: Nullable(Type.String()),
  initial: Type.String(),
  missing_persons: Type.Integer(),
  is_cached: Type.Boolean(),
  last_refresh: Type.String(),
});
const RetentionEnvelope = Type.Object({
  result: Type.Array(Type.Object({ person: Person, appearances: Type.Array(Type.Integer()) })),
  next: Nullable(Type.String()),
  missing_persons: Type.Integer(),
});

/** The documented query parameters of a view (JSON-encoded where structured); others pass through. */
const Query = (names: string[]) =>
  Type.Object(Object.fromEntries(names.map((name) => [name, Type.Optional(Type.String())])), { additionalProperties: true });
const COMMON = ['date_from', 'date_to', 'explicit_date', 'properties', 'search', 'limit', 'offset', 'format'];
const ENTITY = ['events', 'actions', 'entity_id', 'entity_type', 'entity_math', 'entity_order', 'interval'];
const FUNNEL = ['events', 'actions', 'funnel_step', 'funnel_custom_steps', 'funnel_step_breakdown', 'breakdown', 'breakdown_type', 'funnel_window_interval',
  'funnel_window_interval_unit', 'funnel_window_days', 'funnel_order_type', 'funnel_viz_type', 'exclusions', 'interval', 'entrance_period_start', 'drop_off',
  'funnel_from_step', 'funnel_to_step'];
const QUERY_NAMES: Record<string, string[]> = {
  trends: [...COMMON, ...ENTITY, 'display', 'breakdown', 'breakdown_type', 'breakdown_value'],
  stickiness: [...COMMON, ...ENTITY, 'stickiness_days'],
  lifecycle: [...COMMON, 'events', 'actions', 'entity_id', 'interval', 'target_date', 'lifecycle_type'],
  funnel: [...COMMON, ...FUNNEL],
  'funnel/correlation': [...COMMON, ...FUNNEL, 'funnel_correlation_type', 'funnel_correlation_person_entity', 'funnel_correlation_property_values',
    'funnel_correlation_person_converted', 'funnel_correlation_person_limit', 'funnel_correlation_person_offset'],
  path: [...COMMON, 'include_event_types', 'include_custom_events', 'exclude_events', 'start_point', 'end_point', 'step_limit', 'path_groupings',
    'path_start_key', 'path_end_key', 'path_dropoff_key', 'funnel_paths', 'funnel_filter'],
  retention: [...COMMON, 'target_entity', 'returning_entity', 'retention_type', 'period', 'total_intervals', 'selected_interval', 'breakdown_values'],
};

type View = (context: ViewContext, raw: RawParams, page: PageRequest) => Promise<ActorsResult>;

interface ViewSpec {
  name: string;
  view: View;
  methods: ('GET' | 'POST')[];
  /** Stickiness and lifecycle count "has more" after dropping missing persons (as PostHog does). */
  hasMoreAfterDrop?: boolean;
  limitKey?: string;
  offsetKey?: string;
}

const VIEWS: ViewSpec[] = [
  { name: 'trends', view: trendsActors, methods: ['GET'] },
  { name: 'stickiness', view: stickinessActors, methods: ['GET'], hasMoreAfterDrop: true },
  { name: 'lifecycle', view: lifecycleActors, methods: ['GET'], hasMoreAfterDrop: true },
  { name: 'funnel', view: funnelActors, methods: ['GET', 'POST'] },
  {
    name: 'funnel/correlation',
    view: correlationActors,
    methods: ['GET', 'POST'],
    limitKey: 'funnel_correlation_person_limit',
    offsetKey: 'funnel_correlation_person_offset',
  },
  { name: 'path', view: pathActors, methods: ['GET', 'POST'] },
];

function absoluteUrl(request: FastifyRequest, siteUrl: string | null, offsetKey?: string, offset?: number): string {
  // Only the query string survives into links; a POST body is not carried (PostHog behaves alike).
  const url = new URL(request.url, 'http://placeholder');
  if (offsetKey !== undefined) url.searchParams.set(offsetKey, String(offset));
  return `${requestBaseUrl(request, siteUrl)}${url.pathname}${url.search}`;
}

function contextOf(request: FastifyRequest, deps: Deps): ViewContext {
  const { project } = projectAccessOf(request);
  return { db: deps.db, teamId: project.id, timezone: project.timezone, now: deps.clock.now() };
}

export const personAnalyticsRoutes: RouteModule = (app, deps) => {
  const tags = ['persons'];
  const access = { scopes: ['person:read'], project: 'project_id', tier: 'analytics' as const };

  const correlation = VIEWS.find((view) => view.name === 'funnel/correlation') as ViewSpec;
  for (const route of VIEWS) {
    app.route({
      method: route.methods,
      url: `/api/projects/:project_id/persons/${route.name}/`,
      schema: { tags, params: ProjectParams, querystring: Query(QUERY_NAMES[route.name]), response: { 200: ActorsEnvelope, ...errorResponses } },
      config: { access, heavy: 'analytics' },
      handler: async (request, reply) => {
        const raw = mergeParams(request.query, request.method === 'POST' ? request.body : undefined);
        // A funnel request naming a correlation entity is answered by the correlation view (as PostHog does).
        const spec = route.name === 'funnel' && raw.funnel_correlation_person_entity !== undefined ? correlation : route;
        const limitKey = spec.limitKey ?? 'limit';
        const offsetKey = spec.offsetKey ?? 'offset';
        const csv = wantsCsv(request);
        const page = pageParams(raw, limitKey, offsetKey);
        const result = await spec.view(contextOf(request, deps), raw, page);
        if (csv) return sendCsv(reply, toCsv(result.people as unknown as Record<string, unknown>[]), 'persons.csv');
        const hasMore = (spec.hasMoreAfterDrop ? result.people.length : result.rawCount) >= page.limit;
        return {
          results: [{ people: result.people, count: result.people.length }],
          next: hasMore ? absoluteUrl(request, deps.config.siteUrl, offsetKey, page.offset + page.limit) : null,
          initial: absoluteUrl(request, deps.config.siteUrl),
          missing_persons: result.missing,
          is_cached: false,
          last_refresh: deps.clock.now().toISOString(),
        };
      },
    });
  }

  app.get('/api/projects/:project_id/persons/retention/', {
    schema: { tags, params: ProjectParams, querystring: Query(QUERY_NAMES.retention), response: { 200: RetentionEnvelope, ...errorResponses } },
    config: { access, heavy: 'analytics' },
  }, async (request, reply) => {
    const raw = mergeParams(request.query, undefined);
    const csv = wantsCsv(request);
    const page = pageParams(raw);
    const { result, rawCount, missing } = await retentionActors(contextOf(request, deps), raw, page);
    if (csv) return sendCsv(reply, toCsv(result as unknown as Record<string, unknown>[]), 'retention.csv');
    return {
      result,
      next: rawCount >= page.limit ? absoluteUrl(request, deps.config.siteUrl, 'offset', page.offset + page.limit) : null,
      missing_persons: missing,
    };
  });
};
