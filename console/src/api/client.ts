// The console's only way to the server: herd's public API, with the personal API key of the session
// in the Authorization header (never in a URL).
import { readKey, signOut } from '../session.ts';

import type { Query } from './types.ts';

export type { Query };

/** An error of the API in its envelope, or a network failure rendered the same way. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string;
  readonly detail: string;
  readonly attr: string | null;

  constructor(status: number, body: { type?: unknown; code?: unknown; detail?: unknown; attr?: unknown }) {
    const detail =
      typeof body.detail === 'string' && body.detail !== '' ? body.detail : `The server answered ${status}.`;
    super(detail);
    this.status = status;
    this.type = typeof body.type === 'string' ? body.type : 'error';
    this.code = typeof body.code === 'string' ? body.code : 'error';
    this.detail = detail;
    this.attr = typeof body.attr === 'string' ? body.attr : null;
  }
}

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}${path.includes('?') ? '&' : '?'}${text}` : path;
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  query?: Query;
  body?: unknown;
  /** The key to use instead of the session's (signing in). */
  key?: string;
  accept?: string;
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const key = options.key ?? readKey();
  const headers: Record<string, string> = { accept: options.accept ?? 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(withQuery(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, { detail: 'The server could not be reached.' });
  }
  if (response.ok) return response;
  let body: Record<string, unknown> = {};
  try {
    body = (await response.json()) as Record<string, unknown>;
  } catch {
    // Not the envelope (a proxy's page): the status alone is reported.
  }
  const error = new ApiError(response.status, body);
  // The session's key stopped working (revoked): back to the sign-in screen with the reason.
  if (options.key === undefined && response.status === 401) signOut(error.detail);
  throw error;
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** Downloads a CSV answer as a file: fetched with the key in the header, then saved from a Blob. */
export function downloadCsv(path: string, query: Query, filename: string): Promise<void> {
  return downloadFile(path, { query: { ...query, format: 'csv' }, accept: 'text/csv' }, filename);
}

/** Downloads an answer as a file (an attachment such as a person's export), the key in the header. */
export async function downloadFile(
  path: string,
  options: { query?: Query; accept?: string },
  filename: string,
): Promise<void> {
  const response = await send(path, options);
  const blob = await response.blob();
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
