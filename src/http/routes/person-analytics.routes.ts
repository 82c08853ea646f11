// The analytical person views, as PostHog's persons API of 2022 to mid-2024 answers them: each
// route parses its request into the view's query module and renders the envelope with an absolute
// `next` link.
import type { FastifyRequest } from 'fastify';
import type { ActorsResult } from '../../analytics/actors.ts';
import type { ViewContext } from '../../analytics/view-context.ts';
import { funnelActors } from '../../analytics/funnel.query.ts';
import { correlationActors } from '../../analytics/funnel-correlation.query.ts';
import { lifecycleActors } from '../../analytics/lifecycle.query.ts';
import { mergeParams, pageParams, type RawParams } from '../../analytics/params.ts';
import { pathActors } from '../../analytics/path.query.ts';
import { retentionActors } from '../../analytics/retention.query.ts';
import { stickinessActors } from '../../analytics/stickiness.query.ts';
import { trendsActors } from '../../analytics/trends.query.ts';
import {
  PersonsViewResult,
  RetentionResult,
  viewBody,
  viewQuery,
  type ViewName,
} from '../../analytics/views.schemas.ts';
import { PERSONS_CSV_EXAMPLE } from '../../modules/persons/persons.schemas.ts';
import { toCsv, wantsCsv } from '../../wire/csv.ts';
import type { PageRequest } from '../../wire/page.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../wire/page.ts';
import { errorResponses, ProjectParams } from '../../wire/schemas.ts';
import { requestBaseUrl } from '../pagination.ts';
import { describe } from '../route-docs.ts';
import { sendCsv, viewContextOf } from '../route-helpers.ts';
import type { RouteModule } from '../route-module.ts';

type View = (context: ViewContext, raw: RawParams, page: PageRequest) => Promise<ActorsResult>;

interface ViewSpec {
  name: ViewName;
  view: View;
  methods: ('GET' | 'POST')[];
  summary: string;
  description: string;
  errors: string;
  /** Stickiness and lifecycle count "has more" after dropping missing persons (as PostHog does). */
  hasMoreAfterDrop?: boolean;
  limitKey?: string;
  offsetKey?: string;
}

const ENTITY_ERRORS = 'no entity to pick (`entity_id`), an action, an unknown `entity_math`';

const VIEWS: ViewSpec[] = [
  {
    name: 'trends',
    view: trendsActors,
    methods: ['GET'],
    summary: 'Persons behind a trends point',
    description:
      "The persons with events of the point's entity in the point's window, most events first (or the largest aggregate of `math_property` with a property math). " +
      'The point is `date_from`: with the default time-series display it names **one** `interval` bucket, so `date_from=-7d` with `interval=day` lists the persons of the single day seven days ago, ' +
      'not of the last seven days (see `date_from`; `display=ActionsLineGraphCumulative` takes the whole range).',
    errors: ENTITY_ERRORS,
  },
  {
    name: 'stickiness',
    view: stickinessActors,
    methods: ['GET'],
    hasMoreAfterDrop: true,
    summary: 'Persons behind a stickiness bar',
    description:
      "The persons who performed the bar's entity in exactly `stickiness_days` distinct intervals (`interval`) of the range, by person id.",
    errors: ENTITY_ERRORS,
  },
  {
    name: 'lifecycle',
    view: lifecycleActors,
    methods: ['GET'],
    hasMoreAfterDrop: true,
    summary: 'Persons behind a lifecycle bar',
    description:
      "Each person's active periods (by `interval`) in the range, and one period either side, are marked new, returning or resurrecting, and the period after an active one with no activity dormant; " +
      'the persons marked `lifecycle_type` at `target_date` are listed, by person id.',
    errors: 'no `target_date` or `lifecycle_type` (`required`), an unknown `lifecycle_type`, no entity',
  },
  {
    name: 'funnel',
    view: funnelActors,
    methods: ['GET', 'POST'],
    summary: 'Persons of a funnel step',
    description:
      'The persons who reached a step of the funnel `events` within the conversion window (`funnel_step=N`), who dropped off before one (`-N`), or who entered in one period (`funnel_viz_type=trends`), by uuid. ' +
      'A request naming `funnel_correlation_person_entity` is answered as `/persons/funnel/correlation/`.',
    errors:
      'no steps in `events`, neither `funnel_step` nor `funnel_custom_steps` (`required`), `funnel_step=-1`, trends without `drop_off` or `entrance_period_start`',
  },
  {
    name: 'funnel/correlation',
    view: correlationActors,
    methods: ['GET', 'POST'],
    limitKey: 'funnel_correlation_person_limit',
    offsetKey: 'funnel_correlation_person_offset',
    summary: 'Persons behind a funnel correlation row',
    description:
      "The funnel's entrants who performed the correlated event during their attempt (`funnel_correlation_type` `events`, `event_with_properties`), or who match the correlated properties (`properties`); " +
      '`funnel_correlation_person_converted` keeps only those who converted, or only those who did not. By uuid.',
    errors:
      'no `funnel_correlation_person_entity` for the event types, no `funnel_correlation_property_values` for `properties` (`required`), the funnel errors',
  },
  {
    name: 'path',
    view: pathActors,
    methods: ['GET', 'POST'],
    summary: 'Persons behind a paths node or edge',
    description:
      "Each person's events in the range become path items (a URL for `$pageview`, a screen name for `$screen`, else the event name), split into sessions after 30 minutes without events, " +
      'consecutive repeats collapsed, cut at `start_point`/`end_point`, `step_limit` long, each item keyed `<step>_<item>`. Lists the persons who took the edge `path_start_key` → `path_end_key`, ' +
      'reached a node, or dropped off at `path_dropoff_key`; with no key, every person with a path. By uuid.',
    errors:
      'a list parameter that is not a JSON list of strings, `hogql` path items, `funnel_paths` without a usable `funnel_filter` (the 400 names `funnel_filter`)',
  },
];

const PAGING = `\`limit\` (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT}) and \`offset\`. \`next\` is the URL of the next page while this one is full, null after the last; \`count\` is the size of this page, not a total.`;
const CORRELATION_PAGING = PAGING.replaceAll('`limit`', '`funnel_correlation_person_limit`').replaceAll(
  '`offset`',
  '`funnel_correlation_person_offset`',
);
const POST_BODY =
  " POST takes the same parameters as a JSON object (structured values as JSON, not text); its keys win over the query string's, and `next` carries only the query string.";

function absoluteUrl(request: FastifyRequest, siteUrl: string | null, offsetKey?: string, offset?: number): string {
  // Only the query string survives into links; a POST body is not carried (PostHog behaves alike).
  const url = new URL(request.url, 'http://placeholder');
  if (offsetKey !== undefined) url.searchParams.set(offsetKey, String(offset));
  return `${requestBaseUrl(request, siteUrl)}${url.pathname}${url.search}`;
}

export const personAnalyticsRoutes: RouteModule = (app, deps) => {
  const tag = 'analytics';
  const access = { scopes: ['person:read'], project: 'project_id', tier: 'analytics' as const };
  const errors = (text: string) => ({
    400: `${text}; a malformed date, number, choice or JSON parameter (\`attr\` names it).`,
  });

  const correlation = VIEWS.find((view) => view.name === 'funnel/correlation') as ViewSpec;
  for (const route of VIEWS) {
    for (const method of route.methods) {
      const docs = describe({
        tag,
        summary: route.summary,
        description: method === 'POST' ? route.description + POST_BODY : route.description,
        returns: 'A page of the persons',
        paging: route.limitKey ? CORRELATION_PAGING : PAGING,
        csv: PERSONS_CSV_EXAMPLE,
        errors: errors(route.errors),
        ...(method === 'POST' && { body: viewBody(route.name) }),
      });
      app.route({
        method,
        url: `/api/projects/:project_id/persons/${route.name}/`,
        schema: {
          ...docs,
          params: ProjectParams,
          querystring: viewQuery(route.name),
          response: { 200: PersonsViewResult, ...errorResponses },
        },
        config: { access, heavy: 'analytics' },
        handler: async (request, reply) => {
          const raw = mergeParams(request.query, request.method === 'POST' ? request.body : undefined);
          // A funnel request naming a correlation entity is answered by the correlation view (as PostHog does).
          const spec =
            route.name === 'funnel' && raw.funnel_correlation_person_entity !== undefined ? correlation : route;
          const limitKey = spec.limitKey ?? 'limit';
          const offsetKey = spec.offsetKey ?? 'offset';
          const csv = wantsCsv(request);
          const page = pageParams(raw, limitKey, offsetKey);
          const result = await spec.view(viewContextOf(request, deps), raw, page);
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
  }

  app.get(
    '/api/projects/:project_id/persons/retention/',
    {
      schema: {
        ...describe({
          tag,
          summary: 'Persons of a retention cohort',
          description:
            'The persons of the cohort `selected_interval` (those who performed the target entity in that period, or first did then with `retention_first_time`), each with the later periods of the table ' +
            'in which they performed the returning entity; most appearances first. The table ends with the period holding `date_to` and spans `total_intervals` periods of `period`.',
          returns: "A page of the cohort's persons",
          paging: PAGING.replace('`count` is the size of this page, not a total.', 'there is no count.'),
          csv:
            'appearances.0,appearances.1,appearances.2,person.created_at,person.distinct_ids.0,person.id,person.name,person.properties.email,person.uuid\n' +
            '1,0,1,2026-03-01T09:30:00.000Z,ada-42,42,ada@example.com,ada@example.com,0190a1b2-5e6f-7a8b-9c0d-1e2f3a4b5c6d\n',
          errors: errors(
            '`selected_interval` not below `total_intervals`, an unknown `period` or `retention_type`, a bad entity',
          ),
        }),
        params: ProjectParams,
        querystring: viewQuery('retention'),
        response: { 200: RetentionResult, ...errorResponses },
      },
      config: { access, heavy: 'analytics' },
    },
    async (request, reply) => {
      const raw = mergeParams(request.query, undefined);
      const csv = wantsCsv(request);
      const page = pageParams(raw);
      const { result, rawCount, missing } = await retentionActors(viewContextOf(request, deps), raw, page);
      if (csv) return sendCsv(reply, toCsv(result as unknown as Record<string, unknown>[]), 'retention.csv');
      return {
        result,
        next:
          rawCount >= page.limit ? absoluteUrl(request, deps.config.siteUrl, 'offset', page.offset + page.limit) : null,
        missing_persons: missing,
      };
    },
  );
};
