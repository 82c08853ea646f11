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
import type { RouteModule } from '../route-module.ts';

const tags = ['sdk'];
const HOUR = 3600;
const YEAR = 365 * 24 * HOUR;
const StaticQuery = Type.Object({ v: Type.Optional(Type.String()) });
const responses = { 200: Type.String({ description: 'JavaScript' }), 304: Type.Null({ description: 'Not modified' }), 404: ErrorBody };

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
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) return reply.header('content-encoding', 'gzip').send(file.gzipped);
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
          tags,
          summary: `The browser SDK (posthog-js ${files.version}): array.js for the HTML snippet, and the scripts it loads lazily`,
          security: [],
          params: Type.Object({ file: Type.String() }),
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
          tags,
          summary: 'A script of the browser SDK under its version, as posthog-js asks with strict_script_versioning',
          security: [],
          params: Type.Object({ version: Type.String(), file: Type.String() }),
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
