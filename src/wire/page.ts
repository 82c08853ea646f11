// One page of a list, as every list of the API takes it: limit (default 100, at most 1000) and offset.

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export interface PageRequest {
  limit: number;
  offset: number;
}

/** Defaults and the clamp; the values themselves were validated (PageQuery, or the views' intParam). */
export function pageOf(query: { limit?: number; offset?: number }): PageRequest {
  return { limit: Math.min(query.limit ?? DEFAULT_LIMIT, MAX_LIMIT), offset: query.offset ?? 0 };
}
