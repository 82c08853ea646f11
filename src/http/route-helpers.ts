// What several route files share: answering JSON or CSV, a body that may be absent, boolean and
// required query parameters, the person a path names, and the context of an analytical query.
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ViewContext } from '../analytics/view-context.ts';
import { slicesFor } from '../analytics/person-slices.ts';
import type { TeamRow } from '../db/schema.ts';
import type { Deps } from '../deps.ts';
import { requiredError, validationError } from '../errors.ts';
import { toCsv } from '../wire/csv.ts';
import { projectAccessOf } from './plugins/access.ts';

/** Sends records (or a stream) as a CSV attachment. */
export function sendCsv(reply: FastifyReply, body: string | Readable, filename = 'export.csv') {
  return reply
    .code(200)
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${filename}"`)
    .send(body);
}

/** JSON, or the same records as CSV when the caller asked for it. */
export function respond(reply: FastifyReply, csv: boolean, value: unknown, records?: readonly object[]) {
  if (!csv) return reply.send(value);
  return sendCsv(reply, toCsv(records ?? [value as object]));
}

/**
 * A preValidation hook for routes whose body may be absent: no body reads as `{}` (as DRF reads an
 * empty form, so a missing field is `required`); a body that is present is still checked to be an object.
 */
export async function emptyBodyAsObject(request: FastifyRequest) {
  if (request.body === undefined) request.body = {};
}

/** The person named by the `:id` path parameter, in the project of the request: the target of the persons services. */
export function personTarget(request: FastifyRequest): { project: TeamRow; id: string } {
  return { project: projectAccessOf(request).project, id: (request.params as { id: string }).id };
}

/** The project of the request, the time and the person slices an analytical query (a persons view, an insight) runs with. */
export function viewContextOf(request: FastifyRequest, deps: Deps): ViewContext {
  const { project } = projectAccessOf(request);
  return {
    db: deps.db,
    teamId: project.id,
    timezone: project.timezone,
    now: deps.clock.now(),
    ...slicesFor(deps.config),
  };
}

/** A parameter that must be given and not empty; else a 400 `required` naming it. */
export function requiredText(value: string | undefined, attr: string): string {
  if (value === undefined || value === '') throw requiredError(attr);
  return value;
}

/** `true`/`false` (any letter case), absent = false; anything else is a 400 naming the parameter. */
export function booleanParam(value: unknown, attr: string): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  const text = String(value).toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw validationError('Must be a valid boolean.', attr);
}
