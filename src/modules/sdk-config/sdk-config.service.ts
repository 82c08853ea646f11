// The SDKs' configuration endpoints, answered as the platform answers for a project with no feature
// flags and no optional products: herd evaluates no flags and has no recordings, surveys, heatmaps,
// exception tracking, web vitals or site apps, so the SDK is told all of them are off and calls
// none of their endpoints. Bodies come as the SDKs send them, decoded as capture decodes its own.
import crypto from 'node:crypto';
import type { TeamRow } from '../../db/schema.ts';
import type { Deps } from '../../deps.ts';
import { requiredError, validationError } from '../../errors.ts';
import { decodeCaptureBody } from '../../ingestion/decode-body.ts';
import { teamOfProjectToken } from '../capture/project-token.ts';
import { jsonTypeName } from '../../json-shape.ts';
import type { DecideResponse, FlagsQuery, FlagsResponse, RemoteConfig } from './sdk-config.schemas.ts';

export function remoteConfigOf(team: TeamRow): RemoteConfig {
  return {
    token: team.api_token,
    // Capture reads gzip (by its magic bytes) and base64 form posts.
    supportedCompression: ['gzip', 'gzip-js'],
    hasFeatureFlags: false,
    analytics: { endpoint: '/i/v0/e/' },
    elementsChainAsString: true,
    defaultIdentifiedOnly: true,
    autocapture_opt_out: false,
    captureDeadClicks: false,
    capturePerformance: false,
    autocaptureExceptions: false,
    errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
    logs: { captureConsoleLogs: false },
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    productTours: false,
    conversations: false,
    siteApps: [],
    toolbarParams: {},
    isAuthenticated: false,
  };
}

export async function remoteConfigOfToken(deps: Deps, token: string): Promise<RemoteConfig> {
  return remoteConfigOf(await teamOfProjectToken(deps.db, token));
}

// JSON is not quite JavaScript: U+2028/U+2029 end a line in older engines, and "</script>" ends
// an inline script; escaped, the text means the same in both.
const scriptSafeJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The config.js posthog-js loads: it leaves the config where the SDK looks for it, keyed by token. */
export function remoteConfigScript(config: RemoteConfig): string {
  return [
    '(function () {',
    '  var configs = (window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {});',
    `  configs[${scriptSafeJson(config.token)}] = { config: ${scriptSafeJson(config)}, siteApps: [] };`,
    '})();',
    '',
  ].join('\n');
}

export interface FlagsRequest {
  body: Buffer;
  contentType: string | undefined;
  query: FlagsQuery;
  /** The route's body limit, which also bounds the decompressed body. */
  limit: number;
}

type JsonObject = Record<string, unknown>;

const present = (value: unknown) => value !== undefined && value !== null && value !== '';
const asText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The project a flags request names (body `token`/`api_key`, else the query's), checked as capture checks. */
async function teamOfFlagsRequest(deps: Deps, request: FlagsRequest): Promise<TeamRow> {
  let body: JsonObject = {};
  if (request.body.length > 0) {
    const decoded = await decodeCaptureBody(request.body, request.contentType, request.limit);
    if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
      throw validationError(`Invalid data. Expected a dictionary, but got ${jsonTypeName(decoded)}.`);
    }
    body = decoded as JsonObject;
  }
  const token = [body.token, body.api_key, body.$token, request.query.token, request.query.api_key].find(present);
  const team = await teamOfProjectToken(deps.db, token === undefined ? null : asText(token));
  const distinctId = body.distinct_id;
  if (!present(distinctId)) throw requiredError('distinct_id');
  if ((typeof distinctId !== 'string' && typeof distinctId !== 'number') || String(distinctId).trim() === '') {
    throw validationError('The distinct_id must be a non-empty string.', 'distinct_id');
  }
  return team;
}

/** `/flags/`: no flag is set for anyone; v=2 answers flag details, older versions plain maps. */
export async function evaluateFlags(deps: Deps, request: FlagsRequest): Promise<FlagsResponse> {
  const team = await teamOfFlagsRequest(deps, request);
  const requestId = crypto.randomUUID();
  const flags: FlagsResponse =
    (request.query.v ?? 1) >= 2
      ? { flags: {}, errorsWhileComputingFlags: false, requestId, evaluatedAt: deps.clock.now().getTime() }
      : { featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false, requestId };
  return request.query.config === 'true' ? { ...remoteConfigOf(team), ...flags } : flags;
}

/** `/decide/` of older SDKs: the config and the flags in one answer, shaped by `v`. */
export async function decide(deps: Deps, request: FlagsRequest): Promise<DecideResponse> {
  const team = await teamOfFlagsRequest(deps, request);
  const version = request.query.v ?? 1;
  const response: DecideResponse = {
    ...remoteConfigOf(team),
    config: { enable_collect_everything: true },
    featureFlags: version >= 2 ? {} : [],
    errorsWhileComputingFlags: false,
  };
  if (version >= 3) response.featureFlagPayloads = {};
  if (version >= 4) {
    response.flags = {};
    response.requestId = crypto.randomUUID();
  }
  return response;
}
