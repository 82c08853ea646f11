// The events list and one event: the platform's legacy events API, newest first by keyset.
import type { FastifyRequest } from 'fastify';
import { mergeParams } from '../../analytics/params.ts';
import { parseEventListRequest } from '../../analytics/events-list.params.ts';
import { eventChunks, findEvent, listEvents } from '../../analytics/events-list.query.ts';
import {
  EventItem,
  EventListQuery,
  EventPage,
  EventParams,
  EVENTS_CSV_EXAMPLE,
} from '../../analytics/events-list.schemas.ts';
import { notFound, validationError } from '../../errors.ts';
import { streamCsv, wantsCsv } from '../../wire/csv.ts';
import { isUuid } from '../../wire/ids.ts';
import { errorResponses, FormatQuery, ProjectParams } from '../../wire/schemas.ts';
import { requestBaseUrl } from '../pagination.ts';
import type { HeavyKind } from '../plugins/request-limits.ts';
import { describe } from '../route-docs.ts';
import { respond, sendCsv, viewContextOf } from '../route-helpers.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'events';
const read = { access: { scopes: ['query:read'], project: 'project_id' } };

/** A CSV runs to thousands of events; a property filter may read far back for a page of matches. */
const listWeight = (request: FastifyRequest): HeavyKind | null => {
  if (wantsCsv(request)) return 'analytics';
  return (request.query as { properties?: string }).properties ? 'scan' : null;
};

export const eventRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/events';

  app.get(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List events',
          description:
            'The events of the project, newest first (`timestamp`, then uuid). The filters combine with AND; `after` and `before` are strict bounds. ' +
            '`next` continues after the last event of the page by keyset: a page costs the same however deep, and events captured meanwhile never repeat an event nor push one out. ' +
            'As CSV, the first `limit` events (default 3500) in one streamed answer, without `next`.',
          returns: 'A page of events',
          paging:
            '`{next, results}`: `next` is the absolute URL of the next page (the same filters and a `cursor`) while more events match, null after the last; there is no `count`.',
          csv: EVENTS_CSV_EXAMPLE,
          errors: {
            400: 'a malformed `properties` filter, `after`/`before` date, `limit`, `person_id` or `cursor` (`attr` names it)',
          },
        }),
        params: ProjectParams,
        querystring: EventListQuery,
        response: { 200: EventPage, ...errorResponses },
      },
      config: { ...read, heavy: listWeight },
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const context = viewContextOf(request, deps);
      const listRequest = await parseEventListRequest(context, mergeParams(request.query, undefined), csv);
      if (csv) return sendCsv(reply, streamCsv(await eventChunks(context, listRequest)), 'events.csv');
      const { results, next } = await listEvents(context, listRequest);
      let link: string | null = null;
      if (next) {
        const url = new URL(request.url, 'http://placeholder');
        url.searchParams.set('cursor', `${next.timestamp},${next.uuid}`);
        // The cursor is past the skipped events already.
        url.searchParams.delete('offset');
        link = `${requestBaseUrl(request, deps.config.siteUrl)}${url.pathname}${url.search}`;
      }
      return reply.send({ next: link, results });
    },
  );

  app.get(
    `${base}/:uuid/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve an event',
          description:
            "One event of the project, by its uuid, with its person. A UUIDv7 (what posthog-js sends) is found from the time it carries; another uuid reads through all the project's events.",
          returns: 'The event',
          csv: EVENTS_CSV_EXAMPLE,
          errors: { 400: 'a `uuid` that is not a uuid', 404: 'no such event in the project' },
        }),
        params: EventParams,
        querystring: FormatQuery,
        response: { 200: EventItem, ...errorResponses },
      },
      // A uuid that is not a UUIDv7 near its event's time (or none at all) reads every event of the project.
      config: { ...read, heavy: 'scan' },
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const { uuid } = request.params;
      if (!isUuid(uuid)) throw validationError('Invalid UUID', 'uuid', 'invalid');
      const event = await findEvent(viewContextOf(request, deps), uuid.toLowerCase());
      if (!event) throw notFound(`No events exist for event UUID ${uuid}`);
      return respond(reply, csv, event);
    },
  );
};
