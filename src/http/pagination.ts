// limit/offset pagination with the {count, next, previous, results} envelope and absolute links.
import type { FastifyRequest } from 'fastify';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface PageEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** limit/offset were validated by the route's PageQuery schema; here defaults and the clamp. */
export function pageOf(query: { limit?: number; offset?: number }): PageRequest {
  return { limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT), offset: query.offset ?? 0 };
}

export function requestBaseUrl(request: FastifyRequest, siteUrl: string | null): string {
  return siteUrl ?? `${request.protocol}://${request.host}`;
}

export function pageLink(request: FastifyRequest, siteUrl: string | null, limit: number, offset: number): string {
  const url = new URL(request.url, 'http://placeholder');
  url.searchParams.set('limit', String(limit));
  url.searchParams.set('offset', String(offset));
  return `${requestBaseUrl(request, siteUrl)}${url.pathname}${url.search}`;
}

export function pageEnvelope<T>(request: FastifyRequest, siteUrl: string | null, page: PageRequest, count: number, results: T[]): PageEnvelope<T> {
  const { limit, offset } = page;
  const next = offset + limit < count ? pageLink(request, siteUrl, limit, offset + limit) : null;
  const previous = offset > 0 ? pageLink(request, siteUrl, limit, Math.max(0, offset - limit)) : null;
  return { count, next, previous, results };
}
