// The console: its page at `/` and its content-hashed assets, from the bundle `npm ci` builds into
// console/dist. Its pages carry a strict Content-Security-Policy; the API's headers are untouched.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { notFound } from '../../errors.ts';
import type { RouteModule } from '../route-module.ts';

const DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));

// No inline script or style, no eval; the page talks only to its own origin and cannot be framed.
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

interface Manifest {
  assets: Array<{ file: string }>;
}

async function readManifest(): Promise<Manifest | null> {
  try {
    return JSON.parse(await fs.readFile(path.join(DIST, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    return null;
  }
}

function consoleHeaders(reply: FastifyReply, contentType: string, cacheControl: string) {
  reply
    .header('content-security-policy', CONSOLE_CSP)
    .header('content-type', contentType)
    .header('cache-control', cacheControl);
}

export const consoleRoutes: RouteModule = (app) => {
  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    let page: Buffer;
    try {
      page = await fs.readFile(path.join(DIST, 'index.html'));
    } catch {
      consoleHeaders(reply, 'text/plain; charset=utf-8', 'no-store');
      return reply.code(503).send('The herd console is not built: run `npm ci` (or `node console/build.ts`).\n');
    }
    // The page names the current assets, so it is revalidated; the assets themselves never change.
    consoleHeaders(reply, 'text/html; charset=utf-8', 'no-cache');
    return reply.send(page);
  });

  app.get(
    '/assets/:file',
    { schema: { hide: true } },
    async (request: FastifyRequest<{ Params: { file: string } }>, reply) => {
      const { file } = request.params;
      // Only files the build listed are served: no path of the request ever reaches the filesystem.
      const manifest = await readManifest();
      const listed = manifest?.assets.some((asset) => asset.file === file);
      const contentType = CONTENT_TYPES[path.extname(file)];
      if (!listed || !contentType) throw notFound();
      const gzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
      let body: Buffer;
      try {
        body = await fs.readFile(path.join(DIST, 'assets', gzip ? `${file}.gz` : file));
      } catch {
        throw notFound();
      }
      consoleHeaders(reply, contentType, 'public, max-age=31536000, immutable');
      reply.header('vary', 'accept-encoding');
      if (gzip) reply.header('content-encoding', 'gzip');
      return reply.send(body);
    },
  );
};
