// One renderer for every error path: typed AppErrors, schema validation, body parsing, unknown
// routes (404) and known paths with another method (405), and anything unexpected (500).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import type { Deps } from '../../deps.ts';
import { authenticate } from '../../modules/access/access.service.ts';
import { jsonTypeName } from '../../json-shape.ts';
import { AppError, methodNotAllowed, notFound, payloadTooLarge, serverError, validationError } from '../../errors.ts';
import { drainBoundOf, drainRequest } from './drain-body.ts';
import { statementTimeoutError } from './request-limits.ts';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  data?: unknown;
}

/** DRF's words for a value that is not of the declared type. */
export const TYPE_MESSAGES: Record<string, string> = {
  string: 'Not a valid string.',
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  boolean: 'Must be a valid boolean.',
};

function attrOf(instancePath: string): string | null {
  if (!instancePath) return null;
  return instancePath.slice(1).split('/').join('.');
}

/** Turns the first schema error into the envelope's detail, code and attr, in DRF's words. */
export function translateValidation(errors: AjvError[], context: string | undefined): AppError {
  const error = errors[0];
  const attr = attrOf(error.instancePath);
  const params = error.params;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return validationError('This field is required.', attr ? `${attr}.${missing}` : missing, 'required');
    }
    case 'type': {
      const expected = String(params.type).split(',')[0];
      if (attr === null && context === 'body') {
        return validationError(`Invalid data. Expected a dictionary, but got ${jsonTypeName(error.data)}.`);
      }
      if (expected === 'object') {
        return validationError(`Expected a dictionary of items but got type "${jsonTypeName(error.data)}".`, attr);
      }
      if (expected === 'array') {
        return validationError(`Expected a list of items but got type "${jsonTypeName(error.data)}".`, attr);
      }
      return validationError(TYPE_MESSAGES[expected] ?? `Must be of type ${expected}.`, attr);
    }
    case 'maxLength':
      return validationError(
        `Ensure this field has no more than ${String(params.limit)} characters.`,
        attr,
        'max_length',
      );
    case 'minLength':
      return Number(params.limit) === 1
        ? validationError('This field may not be blank.', attr, 'blank')
        : validationError(`Ensure this field has at least ${String(params.limit)} characters.`, attr, 'min_length');
    case 'maxItems':
      return validationError(
        `Ensure this field has no more than ${String(params.limit)} elements.`,
        attr,
        'max_length',
      );
    case 'minItems':
      return validationError(`Ensure this field has at least ${String(params.limit)} elements.`, attr);
    case 'enum':
    case 'const':
    case 'anyOf':
      return validationError(`"${String(error.data)}" is not a valid choice.`, attr, 'invalid_choice');
    case 'format': {
      const format = String(params.format);
      const message =
        format === 'uuid'
          ? 'Must be a valid UUID.'
          : format === 'email'
            ? 'Enter a valid email address.'
            : `Must be a valid ${format}.`;
      return validationError(message, attr);
    }
    case 'minimum':
      return validationError(`Ensure this value is greater than or equal to ${String(params.limit)}.`, attr);
    case 'maximum':
      return validationError(`Ensure this value is less than or equal to ${String(params.limit)}.`, attr);
    case 'pattern':
      return validationError('This value does not match the required pattern.', attr);
    default:
      return validationError(error.message ?? 'Invalid input.', attr);
  }
}

/** Maps a thrown error to the AppError that answers it; null means an unexpected fault. */
export function toAppError(
  error: FastifyError & { validation?: AjvError[]; validationContext?: string },
): AppError | null {
  if (error instanceof AppError) return error;
  if (error.validation) {
    // A malformed path parameter names nothing that exists.
    if (error.validationContext === 'params') return notFound();
    return translateValidation(error.validation, error.validationContext);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge();
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(415, 'invalid_request', 'unsupported_media_type', 'Unsupported media type in request.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return validationError('JSON parse error - Expecting value: line 1 column 1 (char 0)');
  }
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return validationError(`JSON parse error - ${error.message}`);
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) {
    if (status === 413) return payloadTooLarge();
    return new AppError(
      status,
      status === 400 ? 'validation_error' : 'invalid_request',
      status === 400 ? 'invalid_input' : 'error',
      error.message,
    );
  }
  return null;
}

export function sendError(reply: FastifyReply, error: AppError) {
  return reply.code(error.status).headers(error.headers).type('application/json; charset=utf-8').send(error.toBody());
}

/**
 * The router's own faults, raised before any route or error handler: a URL that does not decode
 * and a path parameter longer than maxParamLength. Such a path names nothing, as a malformed
 * parameter does: 404 in the envelope (Fastify's default is its own body, 400 or 414).
 */
export function renderFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const known = error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  return sendError(reply, known ? notFound() : serverError());
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export function registerErrorHandling(app: FastifyInstance, deps: Deps) {
  // A mirror of the route table, to tell "no such path" (404) from "not this method" (405). It is
  // built by the first request no route takes: a start registers every route and needs none of it.
  const routes: Array<[method: string, url: string]> = [];
  let known: ReturnType<typeof FindMyWay> | null = null;
  const knownRoutes = () => {
    if (!known) {
      known = FindMyWay({ ignoreTrailingSlash: true });
      for (const [method, url] of routes)
        if (!known.hasRoute(method as 'GET', url)) known.on(method as 'GET', url, () => undefined);
    }
    return known;
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (METHODS.includes(method)) routes.push([method, route.url]);
  });

  app.setErrorHandler(async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error) ?? statementTimeoutError(request, error);
    // Fastify's body parsers refuse a body before its end (and close the connection after the
    // answer): the client still writing it must get to read the answer.
    if (appError && error.code?.startsWith('FST_ERR_CTP_'))
      await drainRequest(request.raw, drainBoundOf(request.routeOptions.bodyLimit));
    if (appError) return sendError(reply, appError);
    request.log.error({ err: error }, 'unexpected error');
    return sendError(reply, serverError());
  });

  app.setNotFoundHandler(async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0];
    const other = METHODS.some(
      (method) => method !== request.method && knownRoutes().find(method as 'GET', path) !== null,
    );
    if (!other) return sendError(reply, notFound());
    // As the platform: credentials are checked before the method is refused.
    if (path.startsWith('/api/')) await authenticate(deps, request.headers.authorization);
    return sendError(reply, methodNotAllowed(request.method));
  });
}
