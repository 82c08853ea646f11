// The SDKs' configuration endpoints: posthog-js's remote config (as JSON and as the script it
// loads), /flags/ and the older /decide/. Authenticated by the project token like capture, open to
// every origin, bodies read as raw bytes (JSON, base64 form data=, gzip) in a scope of their own.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  decide,
  evaluateFlags,
  remoteConfigOfToken,
  remoteConfigScript,
} from '../../modules/sdk-config/sdk-config.service.ts';
import {
  DecideResponse,
  FlagsBody,
  FlagsQuery,
  FlagsResponse,
  RemoteConfig,
} from '../../modules/sdk-config/sdk-config.schemas.ts';
import { allowAnyOrigin } from '../plugins/any-origin-cors.ts';
import { ErrorBody } from '../../wire/schemas.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const FLAGS_BODY_LIMIT = 2 * 1024 * 1024;
const tag = 'sdk';
const TokenParams = Type.Object({
  token: Type.String({ description: 'The project token (`phc_…`); an unknown one is a 401.' }),
});
const OPEN = 'Authenticated by the project token, open to every origin.';
const tokenErrors = { 401: ErrorBody };
const bodyErrors = { 400: ErrorBody, 401: ErrorBody, 413: ErrorBody };
// The config changes only with herd itself; a short life lets an upgrade reach pages soon.
const CONFIG_CACHE = 'public, max-age=300';

export const sdkConfigRoutes: RouteModule = async (app, deps) => {
  await app.register(async (scope) => {
    const sdk = scope.withTypeProvider<TypeBoxTypeProvider>();
    sdk.removeAllContentTypeParsers();
    sdk.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    allowAnyOrigin(scope, { methods: ['GET', 'POST', 'OPTIONS'], mirrorOrigin: true });

    sdk.get(
      '/array/:token/config',
      {
        schema: {
          ...describe({
            tag,
            summary: "A project's remote config",
            description: `What posthog-js reads at start: where to send events and which products are on (all optional ones off). Cached for 5 minutes. ${OPEN}`,
            returns: 'The remote config',
          }),
          security: [],
          params: TokenParams,
          response: { 200: RemoteConfig, ...tokenErrors },
        },
      },
      async (request, reply) => {
        const config = await remoteConfigOfToken(deps, request.params.token);
        reply.header('cache-control', CONFIG_CACHE);
        return config;
      },
    );

    sdk.get(
      '/array/:token/config.js',
      {
        schema: {
          ...describe({
            tag,
            summary: "A project's remote config as a script",
            description: `The remote config as the script posthog-js loads: it sets \`window._POSTHOG_REMOTE_CONFIG[token]\`. Cached for 5 minutes. ${OPEN}`,
            returns: 'The script',
            media: 'text/javascript',
          }),
          security: [],
          params: TokenParams,
          response: { 200: Type.String({ description: 'JavaScript' }), ...tokenErrors },
        },
      },
      async (request, reply) => {
        const config = await remoteConfigOfToken(deps, request.params.token);
        return reply
          .type('text/javascript; charset=utf-8')
          .header('cache-control', CONFIG_CACHE)
          .send(remoteConfigScript(config));
      },
    );

    const flagsRequest = (request: { body: unknown; headers: { 'content-type'?: string }; query: FlagsQuery }) => ({
      body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
      contentType: request.headers['content-type'],
      query: request.query,
      limit: FLAGS_BODY_LIMIT,
    });

    sdk.post(
      '/flags',
      {
        bodyLimit: FLAGS_BODY_LIMIT,
        schema: {
          ...describe({
            tag,
            summary: "A person's feature flags",
            description: `The feature flags of the body's \`distinct_id\`: none, as herd evaluates no flags; \`v=2\` answers flag details, \`config=true\` adds the remote config. The body is JSON, gzip or a form with \`data=\` (base64), with the project token (\`token\` or \`api_key\`) unless the query has it. ${OPEN}`,
            returns: 'The flags (none)',
            errors: {
              400: 'no `distinct_id` (`required`), a body that is not a JSON object',
              401: 'no project token, or an unknown one',
              413: 'a body over 2 MiB',
            },
            body: FlagsBody,
          }),
          security: [],
          querystring: FlagsQuery,
          response: { 200: FlagsResponse, ...bodyErrors },
        },
      },
      async (request) => evaluateFlags(deps, flagsRequest(request)),
    );

    sdk.post(
      '/decide',
      {
        bodyLimit: FLAGS_BODY_LIMIT,
        schema: {
          ...describe({
            tag,
            summary: 'Config and feature flags (older SDKs)',
            description: `The older endpoint of earlier SDKs: the remote config and the flags (none) in one answer, shaped by \`v\`. The body as for \`/flags\`. ${OPEN}`,
            returns: 'The config and the flags (none)',
            errors: {
              400: 'no `distinct_id` (`required`), a body that is not a JSON object',
              401: 'no project token, or an unknown one',
              413: 'a body over 2 MiB',
            },
            body: FlagsBody,
          }),
          security: [],
          querystring: FlagsQuery,
          response: { 200: DecideResponse, ...bodyErrors },
        },
      },
      async (request) => decide(deps, flagsRequest(request)),
    );

    for (const path of ['/array/:token/config', '/array/:token/config.js', '/flags', '/decide']) {
      sdk.options(path, { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());
    }
  });
};
