// Persons: list (JSON, a CSV page, or every match streamed as CSV), retrieve, update, delete.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { preparePropertyFilter } from '../../analytics/property-filter.ts';
import type { Deps } from '../../deps.ts';
import { methodNotAllowed, notFound, validationError } from '../../errors.ts';
import { serializePerson, type PersonRecord } from '../../modules/persons/person.serializer.ts';
import { parsePersonRef, personRefOf } from '../../modules/persons/person-ref.ts';
import { setPersonProperties } from '../../modules/persons/person-updates.service.ts';
import {
  countPersons,
  findPerson,
  iteratePersons,
  listPersons,
  newestPersonCursor,
  personColumnShape,
  type PersonCursor,
  type PersonFilters,
} from '../../modules/persons/persons.repository.ts';
import { deletePersons } from '../../modules/persons/persons.service.ts';
import { DeletePersonQuery, FormatQuery, Person, PersonListQuery, PersonParams, ProjectParams, UpdatePersonBody } from '../../modules/persons/persons.schemas.ts';
import { flattenRecord, sendCsv, streamCsv, toCsv, wantsCsv } from '../csv.ts';
import { pageEnvelope, pageOf } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { errorResponses, Page } from '../schemas/common.ts';
import { Type } from 'typebox';
import type { RouteModule } from './index.ts';

const tags = ['persons'];
const read = { access: { scopes: ['person:read'], project: 'project_id' } };
const write = { access: { scopes: ['person:write'], project: 'project_id' } };

/** The person named by the `:id` path parameter in the request's project, or 404. */
export async function personOf(deps: Deps, request: FastifyRequest): Promise<PersonRecord> {
  const { project } = projectAccessOf(request);
  const ref = parsePersonRef((request.params as { id: string }).id);
  const person = await findPerson(deps.db, project.id, ref);
  if (!person) throw notFound();
  return person;
}

/** JSON, or the same records as CSV when the caller asked for it. */
export function respond(reply: FastifyReply, csv: boolean, value: unknown, records?: readonly object[]) {
  if (!csv) return reply.send(value);
  return sendCsv(reply, toCsv(records ?? [value as object]));
}

/** `true`/`false` (any letter case), absent = false; anything else is a 400 naming the parameter. */
export function booleanParam(value: unknown, attr: string): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  const text = String(value).toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw validationError('Must be a valid boolean.', attr);
}

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

export const personRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/persons';

  /** `GET /persons/bulk_delete/` and the like name a collection action, not a person: 405, as for any other path. */
  const refuseActionName = async (request: FastifyRequest) => {
    const id = (request.params as { id: string }).id;
    if (personRefOf(id) !== null || !/^[a-z_]+$/.test(id)) return;
    // Routes are stored without their trailing slash (ignoreTrailingSlash).
    const url = `${base}/${id}`;
    if (METHODS.some((method) => method !== request.method && app.hasRoute({ method, url }))) throw methodNotAllowed(request.method);
  };

  app.get(`${base}/`, {
    schema: { tags, params: ProjectParams, querystring: PersonListQuery, response: { 200: Page(Person), ...errorResponses } },
    config: read,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { project } = projectAccessOf(request);
    const query = request.query;
    const filters: PersonFilters = {
      distinctId: query.distinct_id,
      email: query.email,
      search: query.search !== undefined && query.search.trim() !== '' ? query.search.trim() : undefined,
      properties: query.properties !== undefined && query.properties.trim() !== '' ? await preparePropertyFilter(deps.db, project.id, query.properties) : undefined,
    };
    if (csv && query.limit === undefined) {
      // Every match, streamed in keyset chunks after a header computed in the database. Persons
      // created once the export started stay out (the lines stop at the newest one seen first).
      let newest: PersonCursor | null = null;
      const columns = async () => {
        newest = await newestPersonCursor(deps.db, project.id, filters);
        if (!newest) return [];
        const shape = await personColumnShape(deps.db, project.id, filters, newest);
        return [
          ...Object.keys(flattenRecord(serializePerson({ id: 0, uuid: '', properties: {}, created_at: new Date(0), distinct_ids: [] }))),
          ...Array.from({ length: shape.maxDistinctIds }, (_, index) => `distinct_ids.${index}`),
          ...shape.propertyPaths.map((path) => `properties.${path}`),
        ];
      };
      const source = async function* () {
        for await (const persons of iteratePersons(deps.db, project.id, filters, newest)) yield persons.map(serializePerson);
      };
      // The header is computed before answering, so a failure there is still a clean error response.
      const header = await columns();
      return sendCsv(reply, streamCsv(source, async () => header), 'persons.csv');
    }
    const page = pageOf(query);
    const [count, persons] = await Promise.all([countPersons(deps.db, project.id, filters), listPersons(deps.db, project.id, filters, page)]);
    const results = persons.map(serializePerson);
    const envelope = pageEnvelope(request, deps.config.siteUrl, page, count, results);
    return respond(reply, csv, envelope, results);
  });

  app.get(`${base}/:id/`, {
    schema: { tags, params: PersonParams, querystring: FormatQuery, response: { 200: Person, ...errorResponses } },
    config: read,
    preValidation: refuseActionName,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    return respond(reply, csv, serializePerson(await personOf(deps, request)));
  });

  app.patch(`${base}/:id/`, {
    schema: { tags, params: PersonParams, querystring: FormatQuery, body: UpdatePersonBody, response: { 200: Person, ...errorResponses } },
    config: write,
    preValidation: refuseActionName,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { project } = projectAccessOf(request);
    const person = await personOf(deps, request);
    const updated = await setPersonProperties(deps, project, person, request.body.properties, { userId: actorOf(request).user.id });
    return respond(reply, csv, serializePerson(updated));
  });

  app.delete(`${base}/:id/`, {
    schema: { tags, params: PersonParams, querystring: DeletePersonQuery, response: { 204: Type.Null({ description: 'No body' }), ...errorResponses } },
    config: write,
    preValidation: refuseActionName,
  }, async (request, reply) => {
    wantsCsv(request);
    const deleteEvents = booleanParam(request.query.delete_events, 'delete_events');
    const { project } = projectAccessOf(request);
    const person = await personOf(deps, request);
    const outcome = await deletePersons(deps.db, project, [person.id], deleteEvents, { userId: actorOf(request).user.id }, deps.clock.now());
    if (outcome.deleted === 0) throw notFound();
    return reply.code(204).send(null);
  });
};
