// Typed errors of every module. One error handler renders them as the API's error envelope.

export type ErrorType =
  'validation_error' | 'authentication_error' | 'invalid_request' | 'throttled_error' | 'server_error';

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly detail: string;
  readonly attr: string | null;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    type: ErrorType,
    code: string,
    detail: string,
    attr: string | null = null,
    headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = status;
    this.type = type;
    this.code = code;
    this.detail = detail;
    this.attr = attr;
    this.headers = headers;
  }

  toBody() {
    return { type: this.type, code: this.code, detail: this.detail, attr: this.attr };
  }
}

export const validationError = (detail: string, attr: string | null = null, code = 'invalid_input') =>
  new AppError(400, 'validation_error', code, detail, attr);

export const requiredError = (attr: string) => validationError('This field is required.', attr, 'required');

/** The request is valid but the resource's state forbids it (e.g. cancelling a task that has run). */
export const conflict = (detail: string) => new AppError(409, 'invalid_request', 'conflict', detail);

export const notFound = (detail = 'Not found.') => new AppError(404, 'invalid_request', 'not_found', detail);

export const permissionDenied = (detail = 'You do not have permission to perform this action.') =>
  new AppError(403, 'authentication_error', 'permission_denied', detail);

export const notAuthenticated = () =>
  new AppError(401, 'authentication_error', 'not_authenticated', 'Authentication credentials were not provided.');

export const authenticationFailed = (
  detail = 'Personal API key found in request Authorization header is invalid.',
  code = 'authentication_failed',
) => new AppError(401, 'authentication_error', code, detail);

export const methodNotAllowed = (method: string) =>
  new AppError(405, 'invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`);

export const payloadTooLarge = (detail = 'Request body is too large.') =>
  new AppError(413, 'invalid_request', 'payload_too_large', detail);

export const throttled = (seconds: number) =>
  new AppError(
    429,
    'throttled_error',
    'throttled',
    `Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    null,
    { 'retry-after': String(seconds) },
  );

export const serverError = () => new AppError(500, 'server_error', 'error', 'A server error occurred.');

/** SQLSTATE 23505: a unique constraint turned down a write, usually a race two requests ran. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * A statement ran past its time limit and PostgreSQL cancelled it. An analytical view's caller can
 * ask for less; any other request (capture, a merge that moves many events) can only be retried.
 */
export const queryTimeout = (limitMs: number, analytical: boolean) =>
  new AppError(
    504,
    'server_error',
    'query_timeout',
    `The query took longer than ${limitMs / 1000} s and was cancelled. ${
      analytical ? 'Narrow the date range or filters.' : 'Retry later; the server operator sets this limit.'
    }`,
  );

/** Too many heavy requests of one key, one project or the whole process are running already. */
export const concurrencyLimited = (detail: string, retryAfterSeconds = 1) =>
  new AppError(429, 'throttled_error', 'concurrency_limited', detail, null, {
    'retry-after': String(retryAfterSeconds),
  });
