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
import { DecideResponse, FlagsQuery, FlagsResponse, RemoteConfig } from '../../modules/sdk-config/sdk-config.schemas.ts';
import { allowAnyOrigin } from '../plugins/any-origin-cors.ts';
import { ErrorBody } from '../../wire/schemas.ts';
import type { RouteModule } from '../route-module.ts';

const FLAGS_BODY_LIMIT = 2 * 1024 * 1024;
const tags = ['sdk'];
const TokenParams = Type.Object({ token: Type.String() });
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
          tags,
          summary: "The project's remote config for posthog-js: every optional product off",
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
          tags,
          summary: 'The remote config as the script posthog-js loads (it sets window._POSTHOG_REMOTE_CONFIG[token])',
          security: [],
          params: TokenParams,
          response: { 200: Type.String({ description: 'JavaScript' }), ...tokenErrors },
        },
      },
      async (request, reply) => {
        const config = await remoteConfigOfToken(deps, request.params.token);
        return reply.type('text/javascript; charset=utf-8').header('cache-control', CONFIG_CACHE).send(remoteConfigScript(config));
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
          tags,
          summary: 'Feature flags of a person: none (herd evaluates no flags); v=2 answers flag details, config=true adds the remote config',
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
          tags,
          summary: 'The older config-and-flags endpoint of earlier SDKs: config with every product off, no flags',
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
