// posthog-js for web pages: /static/array.js (what the HTML snippet loads) and the scripts the SDK
// loads beside it, as /static/<name>.js?v=<version> or /static/<version>/<name>.js. Any origin may
// load them; they are cached by browsers and revalidated by their ETag.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../errors.ts';
import { loadBrowserSdkFiles, type BrowserSdkFile } from '../../modules/browser-sdk/browser-sdk-files.ts';
import { allowAnyOrigin } from '../plugins/any-origin-cors.ts';
import { ErrorBody } from '../../wire/schemas.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'sdk';
const FILE = Type.String({
  description:
    'A script of the SDK: `array.js` (what the HTML snippet loads) or one it loads lazily (`recorder.js`, `surveys.js`, …); anything else is a 404.',
});
const HOUR = 3600;
const YEAR = 365 * 24 * HOUR;
const StaticQuery = Type.Object({
  v: Type.Optional(
    Type.String({
      description: 'The SDK version the page asks for: this version makes the answer cacheable for a year.',
    }),
  ),
});
const responses = {
  200: Type.String({ description: 'JavaScript' }),
  304: Type.Null({ description: 'Not modified' }),
  404: ErrorBody,
};

function notModified(request: FastifyRequest, file: BrowserSdkFile): boolean {
  const tags = request.headers['if-none-match'];
  if (tags !== undefined) {
    const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
    return tags.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(file.etag));
  }
  const since = Date.parse(request.headers['if-modified-since'] ?? '');
  return Number.isFinite(since) && Math.floor(file.lastModified.getTime() / 1000) * 1000 <= since;
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: BrowserSdkFile, pinned: boolean) {
  reply
    .header('cache-control', pinned ? `public, max-age=${YEAR}, immutable` : `public, max-age=${HOUR}`)
    .header('etag', file.etag)
    .header('last-modified', file.lastModified.toUTCString())
    .header('vary', 'Accept-Encoding');
  if (notModified(request, file)) return reply.code(304).send();
  reply.type('text/javascript; charset=utf-8');
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? ''))
    return reply.header('content-encoding', 'gzip').send(file.gzipped);
  return reply.send(file.body);
}

export const staticSdkRoutes: RouteModule = async (app) => {
  const files = loadBrowserSdkFiles();
  await app.register(async (scope) => {
    const assets = scope.withTypeProvider<TypeBoxTypeProvider>();
    allowAnyOrigin(scope, { methods: ['GET', 'HEAD'], mirrorOrigin: false });

    assets.get(
      '/static/:file',
      {
        schema: {
          ...describe({
            tag,
            summary: 'The browser SDK',
            description: `posthog-js ${files.version}, the browser SDK herd is tested with: \`array.js\` for the HTML snippet, and the scripts the SDK loads beside it. Open to every origin; cached an hour (a year with \`v\` of this version), revalidated by ETag; gzip when accepted.`,
            returns: 'The script',
            media: 'text/javascript',
          }),
          security: [],
          params: Type.Object({ file: FILE }),
          querystring: StaticQuery,
          response: responses,
        },
      },
      async (request, reply) => {
        const file = await files.find(request.params.file);
        if (!file) throw notFound();
        // The SDK asks for its lazily loaded scripts with ?v=<its version>: such a URL never changes.
        return sendFile(request, reply, file, request.query.v === files.version);
      },
    );

    assets.get(
      '/static/:version/:file',
      {
        schema: {
          ...describe({
            tag,
            summary: 'The browser SDK, by version',
            description: `A script of the browser SDK under its version, as posthog-js asks with \`strict_script_versioning\`; only ${files.version} is served. Cached for a year.`,
            returns: 'The script',
            media: 'text/javascript',
            errors: { 404: `a version other than ${files.version}, or an unknown file` },
          }),
          security: [],
          params: Type.Object({
            version: Type.String({ description: `The SDK version: ${files.version}.` }),
            file: FILE,
          }),
          response: responses,
        },
      },
      async (request, reply) => {
        const file = request.params.version === files.version ? await files.find(request.params.file) : null;
        if (!file) throw notFound();
        return sendFile(request, reply, file, true);
      },
    );
  });
};
