// Capture endpoints. They authenticate by the project token inside the body, so they carry no
// `config.access`; an encapsulated plugin gives them raw-body parsing, larger limits and CORS
// without touching the API's JSON parser, 1 MiB limit or (absent) CORS.
import cors from '@fastify/cors';
import { Type } from 'typebox';
import { captureEvents } from '../../modules/capture/capture.service.ts';
import { ErrorBody } from '../../wire/schemas.ts';
import type { RouteModule } from '../route-module.ts';

const MiB = 1024 * 1024;

// PostHog's limits: 20 MiB for batches, 2 MiB for single-event endpoints.
const CAPTURE_PATHS: ReadonlyArray<readonly [string, number]> = [
  ['/batch', 20 * MiB],
  ['/capture', 2 * MiB],
  ['/e', 2 * MiB],
  ['/i/v0/e', 2 * MiB],
];

const isCapturePath = (url: string) => {
  const path = url.split('?')[0].replace(/\/+$/, '');
  return CAPTURE_PATHS.some(([capturePath]) => capturePath === path);
};

const CaptureResponse = Type.Object({ status: Type.Literal('Ok') });
const ok = { status: 'Ok' as const };

export const captureRoutes: RouteModule = async (app, deps) => {
  await app.register(async (capture) => {
    capture.removeAllContentTypeParsers();
    // Every body arrives as bytes: gzip, form and JSON are told apart by captureEvents.
    capture.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    // @fastify/cors answers OPTIONS for every path of the app; only capture paths get CORS.
    await capture.register(cors, {
      delegator: (request, callback) =>
        callback(
          null,
          isCapturePath(request.url)
            ? { origin: true, credentials: true, methods: ['POST', 'OPTIONS'], preflightContinue: true, optionsSuccessStatus: 200 }
            : { origin: false },
        ),
    });

    for (const [path, limit] of CAPTURE_PATHS) {
      capture.post(
        path,
        {
          bodyLimit: limit,
          schema: {
            tags: ['capture'],
            summary: 'Capture events (batch object, array or single event; JSON, gzip or form data=), authenticated by the project token',
            security: [],
            response: { 200: CaptureResponse, 400: ErrorBody, 401: ErrorBody, 413: ErrorBody },
          },
        },
        async (request) => {
          await captureEvents(deps, {
            body: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
            contentType: request.headers['content-type'],
            query: request.query as Record<string, unknown>,
            limit,
            ip: request.ip,
          });
          return ok;
        },
      );
      capture.options(path, { schema: { hide: true, response: { 200: CaptureResponse } } }, async () => ok);
    }
  });
};
