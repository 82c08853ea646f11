// The {count, next, previous, results} envelope of a page, with absolute links.
import type { FastifyRequest } from 'fastify';
import { pageOf, type PageRequest } from '../wire/page.ts';

export interface PageEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
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

export function pageEnvelope<T>(
  request: FastifyRequest,
  siteUrl: string | null,
  page: PageRequest,
  count: number,
  results: T[],
): PageEnvelope<T> {
  const { limit, offset } = page;
  const next = offset + limit < count ? pageLink(request, siteUrl, limit, offset + limit) : null;
  const previous = offset > 0 ? pageLink(request, siteUrl, limit, Math.max(0, offset - limit)) : null;
  return { count, next, previous, results };
}

/** A list route's answer: the page its query asks for, listed by `list`, in the envelope. */
export async function listPage<T>(
  request: FastifyRequest,
  siteUrl: string | null,
  list: (page: PageRequest) => Promise<{ count: number; results: T[] }>,
): Promise<PageEnvelope<T>> {
  const page = pageOf(request.query as { limit?: number; offset?: number });
  const { count, results } = await list(page);
  return pageEnvelope(request, siteUrl, page, count, results);
}
