// How a route explains itself in the API document (`/api/schema/`). `describe()` gives an
// operation its tag, summary, description and the name of what it answers, in one shape for
// every route; the openapi plugin turns it into the document, adding who may call the route
// (from its `config.access`) and the standard sentences on paging, CSV and errors.
import type { TSchema } from 'typebox';

/** What the plugin reads beside the schema; never seen by validation or serialization. */
export interface RouteDocs {
  /** The success response, for the reader: "The person", "A page of persons". */
  returns: string;
  /** The success response's media type when it is not JSON (`text/javascript`). */
  media?: string;
  /** `true`: the page envelope and its standard paging; a string: the route's own paging. */
  paging?: true | string;
  /** The route also answers CSV (`format=csv`, `Accept: text/csv`): an example of it. */
  csv?: string;
  /** Errors worth knowing beyond those of every route, by status; each also describes that response. */
  errors?: Partial<Record<400 | 401 | 403 | 404 | 405 | 409 | 413, string>>;
  /** A body the handler reads itself (raw bytes, or merged over the query): documented, not validated. */
  body?: TSchema;
}

declare module 'fastify' {
  interface FastifySchema {
    'x-docs'?: RouteDocs;
  }
}

export interface OperationDocs extends RouteDocs {
  /** The resource group the operation is listed under. */
  tag: string;
  /** One short line: "List persons". */
  summary: string;
  /** What it does and for whom, in Markdown. Scope, membership and rate limit are added from `config.access`. */
  description: string;
}

/** The documentation keys of a route's `schema`: spread them beside `params`, `querystring`, `body` and `response`. */
export function describe({ tag, summary, description, ...docs }: OperationDocs) {
  return { tags: [tag], summary, description, 'x-docs': docs };
}
