// The insight aggregates: trends (with stickiness and lifecycle),
// funnels, retention and paths, in PostHog's legacy shapes, each number linked to the persons
// view that lists it. GET reads the query string; POST merges a JSON body over it.
import { Type, type TSchema } from 'typebox';
import type { ViewContext } from '../../analytics/view-context.ts';
import {
  FUNNEL_REQUEST,
  PATH_REQUEST,
  RETENTION_REQUEST,
  TREND_REQUEST,
} from '../../analytics/insights/insight.examples.ts';
import {
  bodyOf,
  FUNNEL_PARAMS,
  InsightFunnelResponse,
  InsightPathResponse,
  InsightRetentionResponse,
  InsightTrendResponse,
  PATH_PARAMS,
  queryOf,
  RETENTION_PARAMS,
  TREND_PARAMS,
} from '../../analytics/insights/insight.schemas.ts';
import { funnelInsight } from '../../analytics/insights/funnel.insight.ts';
import { pathInsight } from '../../analytics/insights/path.insight.ts';
import { retentionInsight } from '../../analytics/insights/retention.insight.ts';
import { trendInsight } from '../../analytics/insights/trend.insight.ts';
import { mergeParams, type RawParams } from '../../analytics/params.ts';
import { errorResponses, ProjectParams } from '../../wire/schemas.ts';
import { describe } from '../route-docs.ts';
import { viewContextOf } from '../route-helpers.ts';
import type { RouteModule } from '../route-module.ts';

interface Endpoint {
  name: string;
  summary: string;
  description: string;
  /** What the answer is, for the reader. */
  returns: string;
  /** What bounds the answer, which is never paged. */
  bound: string;
  params: Record<string, string>;
  request: Record<string, unknown>;
  response: TSchema & { $id?: string };
  answer(context: ViewContext, raw: RawParams): Promise<unknown>;
}

const AGREEMENT = 'Every number agrees with the persons view its link leads to; links are paths the same key can GET.';

const POST_BODY =
  "POST takes the same parameters as a JSON body, structured values as JSON rather than text; a key in the body wins over the query string's.";
const ERRORS =
  'a malformed date, number, choice or JSON parameter, or a non-empty `actions` (`attr` names the parameter).';

const ENDPOINTS: Endpoint[] = [
  {
    name: 'trend',
    summary: 'Trends, stickiness or lifecycle series',
    description: `One series per entity of \`events\` (and per breakdown value): a number per interval, or one \`aggregated_value\` for single-number displays; \`persons_urls\` lead to \`/persons/trends/\` (\`/persons/stickiness/\`, \`/persons/lifecycle/\` with \`shown_as\`). ${AGREEMENT}`,
    returns: 'The series',
    bound: 'one series per entity and breakdown value (`breakdown_limit`), one number per interval of the range',
    params: TREND_PARAMS,
    request: TREND_REQUEST,
    response: InsightTrendResponse,
    answer: async (context, raw) => ({ result: await trendInsight(context, raw), next: null }),
  },
  {
    name: 'funnel',
    summary: 'Funnel steps or conversion trend',
    description: `How many persons reached each step of \`events\` within the conversion window, with conversion times and links to \`/persons/funnel/\` (\`funnel_step=N\` converted, \`-N\` dropped off). ${AGREEMENT}`,
    returns: 'The funnel',
    bound: 'one list of steps per breakdown value (`breakdown_limit`), or one conversion number per entrance period',
    params: FUNNEL_PARAMS,
    request: FUNNEL_REQUEST,
    response: InsightFunnelResponse,
    answer: async (context, raw) => ({ result: await funnelInsight(context, raw) }),
  },
  {
    name: 'retention',
    summary: 'Retention table',
    description: `For each cohort period, how many persons performed the target event then, and how many of them performed the returning event each later period; links lead to \`/persons/retention/\` for the cohort (a cell's people are those whose appearances hold 1 at its index). ${AGREEMENT}`,
    returns: 'The retention table',
    bound: '`total_intervals` rows',
    params: RETENTION_PARAMS,
    request: RETENTION_REQUEST,
    response: InsightRetentionResponse,
    answer: async (context, raw) => ({ result: await retentionInsight(context, raw) }),
  },
  {
    name: 'path',
    summary: 'Path edges',
    description: `The edges between consecutive items of the persons' sessions (30 minutes of inactivity split them), nodes named \`<step>_<item>\`; each edge counts the persons who took it and links to \`/persons/path/\` with \`path_start_key\`/\`path_end_key\`. ${AGREEMENT}`,
    returns: 'The path edges',
    bound: 'at most `edge_limit` edges',
    params: PATH_PARAMS,
    request: PATH_REQUEST,
    response: InsightPathResponse,
    answer: async (context, raw) => ({ result: await pathInsight(context, raw) }),
  },
];

export const insightRoutes: RouteModule = (app, deps) => {
  const config = {
    access: { scopes: ['insight:read'], project: 'project_id', tier: 'analytics' as const },
    heavy: 'analytics' as const,
  };
  for (const endpoint of ENDPOINTS) {
    app.addSchema(endpoint.response);
    const url = `/api/projects/:project_id/insights/${endpoint.name}/`;
    const response = { 200: Type.Ref(endpoint.response.$id as string), ...errorResponses };
    const docs = (method: string) =>
      describe({
        tag: 'insights',
        summary: endpoint.summary,
        description: method === 'POST' ? `${endpoint.description}\n\n${POST_BODY}` : endpoint.description,
        returns: endpoint.returns,
        paging: `none: the whole answer at once, ${endpoint.bound}.`,
        errors: { 400: ERRORS },
      });
    const common = { params: ProjectParams, querystring: queryOf(endpoint.params, endpoint.request), response };
    app.get(url, { schema: { ...docs('GET'), ...common }, config }, async (request) =>
      endpoint.answer(viewContextOf(request, deps), mergeParams(request.query, undefined)),
    );
    app.post(
      url,
      { schema: { ...docs('POST'), ...common, body: bodyOf(endpoint.params, endpoint.request) }, config },
      async (request) => endpoint.answer(viewContextOf(request, deps), mergeParams(request.query, request.body)),
    );
  }
};
