// Persons: list (JSON, a CSV page, or every match streamed as CSV), retrieve, update, delete.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { methodNotAllowed } from '../../errors.ts';
import { personRefOf } from '../../modules/persons/person-ref.ts';
import { setPersonProperties } from '../../modules/persons/person-updates.service.ts';
import { deletePerson, exportPersonsCsv, getPerson, listPersonsPage } from '../../modules/persons/persons.service.ts';
import {
  DeletePersonQuery,
  Person,
  PersonListQuery,
  PersonParams,
  PERSONS_CSV_EXAMPLE,
  UpdatePersonBody,
} from '../../modules/persons/persons.schemas.ts';
import { wantsCsv } from '../../wire/csv.ts';
import { errorResponses, FormatQuery, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { booleanParam, personTarget, respond, sendCsv } from '../route-helpers.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';
import type { HeavyKind } from '../plugins/request-limits.ts';

const tag = 'persons';
const NO_PERSON = {
  400: 'an `id` that is neither an integer nor a uuid',
  404: 'no such person in the project',
} as const;
const read = { access: { scopes: ['person:read'], project: 'project_id' } };
const write = { access: { scopes: ['person:write'], project: 'project_id' } };

/** The whole CSV export runs long; a property filter or a search may scan every person of the project. */
const listWeight = (request: FastifyRequest): HeavyKind | null => {
  const query = request.query as { limit?: number; properties?: string; search?: string };
  if (wantsCsv(request) && query.limit === undefined) return 'analytics';
  return query.properties || query.search ? 'scan' : null;
};

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

export const personRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/persons';

  /** `GET /persons/bulk_delete/` and the like name a collection action, not a person: 405, as for any other path. */
  const refuseActionName = async (request: FastifyRequest) => {
    const id = (request.params as { id: string }).id;
    if (personRefOf(id) !== null || !/^[a-z_]+$/.test(id)) return;
    // Routes are stored without their trailing slash (ignoreTrailingSlash).
    const url = `${base}/${id}`;
    if (METHODS.some((method) => method !== request.method && app.hasRoute({ method, url })))
      throw methodNotAllowed(request.method);
  };

  app.get(
    `${base}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List persons',
          description:
            'The persons of the project, newest first (`created_at`, then id). The filters `distinct_id`, `email`, `search` and `properties` combine with AND; `count` is exact with them too. ' +
            'As CSV without `limit`, every matching person is streamed, not one page.',
          returns: 'A page of persons',
          paging: true,
          csv: PERSONS_CSV_EXAMPLE,
          errors: { 400: 'a malformed `properties` filter (`attr` `properties`), a bad `limit` or `offset`' },
        }),
        params: ProjectParams,
        querystring: PersonListQuery,
        response: { 200: Page(Person), ...errorResponses },
      },
      config: { ...read, heavy: listWeight },
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const { project } = projectAccessOf(request);
      const { limit, offset: _offset, format: _format, ...filters } = request.query;
      if (csv && limit === undefined)
        return sendCsv(reply, await exportPersonsCsv(deps, { project, filters }), 'persons.csv');
      const envelope = await listPage(request, deps.config.siteUrl, (page) =>
        listPersonsPage(deps, { project, filters, page }),
      );
      return respond(reply, csv, envelope, envelope.results);
    },
  );

  app.get(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Retrieve a person',
          description: 'One person, by integer id or uuid.',
          returns: 'The person',
          csv: PERSONS_CSV_EXAMPLE,
          errors: NO_PERSON,
        }),
        params: PersonParams,
        querystring: FormatQuery,
        response: { 200: Person, ...errorResponses },
      },
      config: read,
      preValidation: refuseActionName,
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      return respond(reply, csv, await getPerson(deps, personTarget(request)));
    },
  );

  app.patch(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Update person properties',
          description:
            "Sets the given properties as a `$set` event for the person's first distinct id would (through the capture pipeline); other properties stay. Recorded in the person's activity.",
          returns: 'The updated person',
          csv: PERSONS_CSV_EXAMPLE,
          errors: {
            400: '`properties` missing or not an object (`attr` `properties`); a bad `id`',
            404: NO_PERSON[404],
          },
        }),
        params: PersonParams,
        querystring: FormatQuery,
        body: UpdatePersonBody,
        response: { 200: Person, ...errorResponses },
      },
      config: write,
      preValidation: refuseActionName,
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      return respond(
        reply,
        csv,
        await setPersonProperties(deps, actorOf(request), {
          ...personTarget(request),
          properties: request.body.properties,
        }),
      );
    },
  );

  app.delete(
    `${base}/:id/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete a person',
          description:
            'Deletes the person and its distinct ids; its events stay unless `delete_events=true`, which queues their deletion for the weekly batch (see `GET /persons/deletion_status/`).',
          returns: 'Deleted; no body',
          errors: { 400: `${NO_PERSON[400]}; \`delete_events\` other than true or false`, 404: NO_PERSON[404] },
        }),
        params: PersonParams,
        querystring: DeletePersonQuery,
        response: { 204: Type.Null({ description: 'No body' }), ...errorResponses },
      },
      config: write,
      preValidation: refuseActionName,
    },
    async (request, reply) => {
      wantsCsv(request);
      const deleteEvents = booleanParam(request.query.delete_events, 'delete_events');
      await deletePerson(deps, actorOf(request), { ...personTarget(request), deleteEvents });
      return reply.code(204).send(null);
    },
  );
};
