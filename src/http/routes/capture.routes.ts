// Capture endpoints. They authenticate by the project token inside the body, so they carry no
// `config.access`; an encapsulated plugin gives them raw-body parsing, larger limits and CORS
// without touching the API's JSON parser, 1 MiB limit or (absent) CORS.
import cors from '@fastify/cors';
import { Type } from 'typebox';
import { captureEvents } from '../../modules/capture/capture.service.ts';
import { ErrorBody } from '../../wire/schemas.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';
import { CaptureBody } from '../../modules/capture/capture.schemas.ts';

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

const CaptureResponse = Type.Object(
  { status: Type.Literal('Ok', { description: 'Every event of the request is stored and its persons processed.' }) },
  { title: 'CaptureResult', description: 'The events were stored.' },
);
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
            ? {
                origin: true,
                credentials: true,
                methods: ['POST', 'OPTIONS'],
                preflightContinue: true,
                optionsSuccessStatus: 200,
              }
            : { origin: false },
        ),
    });

    for (const [path, limit] of CAPTURE_PATHS) {
      capture.post(
        path,
        {
          bodyLimit: limit,
          schema: {
            ...describe({
              tag: 'capture',
              summary: path === '/batch' ? 'Capture a batch of events' : 'Capture events',
              description:
                'Stores events as the PostHog SDKs send them and processes their persons (created on first sight; `$set`, `$set_once`, `$unset`; `$identify`, `$create_alias`, `$merge_dangerously` merges), all or nothing: a rejected request stores nothing. ' +
                'The body is a batch object `{"api_key", "batch": [events]}`, a list of events, or one event, as JSON, gzip (by its magic bytes) or a form with `data=` (base64 JSON). ' +
                'Authenticated by the project token (`api_key`, `token` or `properties.token`; `phc_…`), not a personal API key. Open to every origin (CORS). ' +
                `At most ${limit / MiB} MiB, after decompression too. \`/batch/\`, \`/capture/\`, \`/e/\` and \`/i/v0/e/\` take the same bodies.`,
              returns: 'Stored',
              errors: {
                400: 'a payload that is not one of the shapes, an event without `event` or `distinct_id`, a field of the wrong type (`attr` names it, e.g. `batch.3.timestamp`), tokens that differ within a batch',
                401: 'no token (`missing_api_key`) or an unknown one (`invalid_api_key`): the token is `api_token` of `GET /api/projects/`, or what `herd bootstrap` printed',
                413: `a body over ${limit / MiB} MiB, or one that decompresses beyond it`,
              },
              body: CaptureBody,
            }),
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
