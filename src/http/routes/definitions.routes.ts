// Definitions of a project's data: event names, property keys, and an event property's values
// (kept by capture, src/ingestion/definitions.ts). `events/values/` is a static path: it wins over
// any `events/:id/` route.
import {
  EventDefinition,
  EventDefinitionQuery,
  PropertyDefinition,
  PropertyDefinitionQuery,
  PropertyValues,
  PropertyValuesQuery,
} from '../../modules/definitions/definitions.schemas.ts';
import {
  listEventDefinitions,
  listPropertyDefinitions,
  listPropertyValues,
  writeBufferedDefinitions,
  VALUES_CAP,
  VALUES_SAMPLE,
} from '../../modules/definitions/definitions.service.ts';
import { errorResponses, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { projectAccessOf } from '../plugins/access.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'definitions';

export const definitionRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id';
  // A closing server writes what capture buffered (the database closes after the app).
  app.addHook('onClose', async () => writeBufferedDefinitions(deps));

  app.get(
    `${base}/event_definitions/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List event definitions',
          description:
            'The event names the project has stored, most recently seen first (then by name), each with how many events of it have a timestamp in the last 30 days. Capture keeps them current.',
          returns: 'A page of event definitions',
          paging: true,
        }),
        params: ProjectParams,
        querystring: EventDefinitionQuery,
        response: { 200: Page(EventDefinition), ...errorResponses },
      },
      // The page's volumes count a month of its events.
      config: { access: { scopes: ['event_definition:read'], project: 'project_id' }, heavy: 'scan' },
    },
    async (request) =>
      listPage(request, deps.config.siteUrl, (page) =>
        listEventDefinitions(deps, { project: projectAccessOf(request).project, search: request.query.search, page }),
      ),
  );

  app.get(
    `${base}/property_definitions/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List property definitions',
          description:
            'The property keys seen on the events (`type=event`) or set on the persons (`type=person`) of the project, by name, each with the type inferred from its values. Event lists leave out the keys that carry person updates and groups (`$set`, `$set_once`, `distinct_id`, `$groups`, …). Unlike the platform, `event_names` keeps only the keys seen on those events.',
          returns: 'A page of property definitions',
          paging: true,
          errors: {
            400: 'a `type` other than `event` or `person`; `event_names` not a JSON list of names, or given with `type=person`; `is_numerical` not a boolean',
          },
        }),
        params: ProjectParams,
        querystring: PropertyDefinitionQuery,
        response: { 200: Page(PropertyDefinition), ...errorResponses },
      },
      config: { access: { scopes: ['property_definition:read'], project: 'project_id' } },
    },
    async (request) => {
      const { limit: _limit, offset: _offset, ...query } = request.query;
      return listPage(request, deps.config.siteUrl, (page) =>
        listPropertyDefinitions(deps, { project: projectAccessOf(request).project, query, page }),
      );
    },
  );

  app.get(
    `${base}/events/values/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List values of an event property',
          description: `The values of an event property, most frequent first, as text (a number as its decimal text, a boolean as \`true\`/\`false\`, an object or list as its JSON), at most ${VALUES_CAP}. Read from a sample: at most ${VALUES_SAMPLE.toLocaleString('en')} events of the last 7 days among the event names that carried the key. A bare list, as the platform answers it.`,
          returns: 'The values',
          paging: `Not paged: the ${VALUES_CAP} most frequent values at most.`,
          errors: { 400: 'no `key`' },
        }),
        params: ProjectParams,
        querystring: PropertyValuesQuery,
        response: { 200: PropertyValues, ...errorResponses },
      },
      config: { access: { scopes: ['query:read'], project: 'project_id' }, heavy: 'scan' },
    },
    async (request, reply) => {
      const { key, event_name: eventNames, value } = request.query;
      const values = await listPropertyValues(deps, {
        project: projectAccessOf(request).project,
        key,
        eventNames,
        contains: value,
      });
      // As the platform: a picker asking again within seconds may reuse the answer.
      return reply.header('cache-control', 'max-age=10').send(values);
    },
  );
};
