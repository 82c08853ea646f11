// Person actions: bulk delete, split, update one property, delete one property.
import type { FastifyRequest } from 'fastify';
import { requiredError, validationError } from '../../errors.ts';
import { serializePerson } from '../../modules/persons/person.serializer.ts';
import { personRefOf } from '../../modules/persons/person-ref.ts';
import { setPersonProperties, unsetPersonProperty } from '../../modules/persons/person-updates.service.ts';
import { findPersonIdsForBulk, type PersonRef } from '../../modules/persons/persons.repository.ts';
import { deletePersons, splitPerson } from '../../modules/persons/persons.service.ts';
import {
  BulkDeleteBody,
  BulkDeleteQuery,
  BulkDeleteResult,
  DeletePropertyBody,
  DeletePropertyQuery,
  FormatQuery,
  Person,
  PersonParams,
  ProjectParams,
  SplitBody,
  Success,
  UpdatePropertyBody,
  UpdatePropertyQuery,
} from '../../modules/persons/persons.schemas.ts';
import { wantsCsv } from '../csv.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { errorResponses } from '../schemas/common.ts';
import type { RouteModule } from './index.ts';
import { booleanParam, personOf, respond } from './persons.routes.ts';

const tags = ['persons'];
const write = { access: { scopes: ['person:write'], project: 'project_id' } };
const BULK_LIMIT = 100;

/** Where the body is optional an absent one reads as `{}`; a body that is present is still checked to be an object. */
async function absentBodyAsObject(request: FastifyRequest) {
  if (request.body === undefined) request.body = {};
}

/** `ids=1&ids=2` and `ids=1,2` alike. */
const splitCommas = (values: string[] | undefined) => values?.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');

function bulkRefs(ids: (string | number)[]): PersonRef[] {
  return ids.map((raw) => {
    const ref = typeof raw === 'number' ? { id: Number.isSafeInteger(raw) ? raw : -1 } : personRefOf(raw);
    if (!ref) throw validationError(`"${String(raw)}" is not a valid person id.`, 'ids');
    return ref;
  });
}

/** A query-string value as JSON when it parses (`value=5` is the number 5), else the string itself. */
function decodeValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

export const personActionRoutes: RouteModule = (app, deps) => {
  const base = '/api/projects/:project_id/persons';

  app.post(`${base}/bulk_delete/`, {
    schema: { tags, params: ProjectParams, querystring: BulkDeleteQuery, body: BulkDeleteBody, response: { 200: BulkDeleteResult, ...errorResponses } },
    config: write,
    preValidation: absentBodyAsObject,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const body = request.body ?? {};
    const distinctIds = body.distinct_ids ?? splitCommas(request.query.distinct_ids) ?? [];
    const ids = body.ids ?? splitCommas(request.query.ids) ?? [];
    if (distinctIds.length > BULK_LIMIT) throw validationError(`You can only pass ${BULK_LIMIT} distinct_ids in one call`, 'distinct_ids');
    if (ids.length > BULK_LIMIT) throw validationError(`You can only pass ${BULK_LIMIT} ids in one call`, 'ids');
    if (distinctIds.length === 0 && ids.length === 0) throw validationError('You need to specify either distinct_ids or ids');
    const deleteEvents = booleanParam(
      body.delete_events ?? body.delete_event ?? request.query.delete_events ?? request.query.delete_event,
      'delete_events',
    );
    const { project } = projectAccessOf(request);
    const actor = { userId: actorOf(request).user.id };
    // One transaction for the lookup and the deletes, so the answer counts what was really removed.
    const outcome = await deps.db.transaction().execute(async (trx) => {
      const personIds = await findPersonIdsForBulk(trx, project.id, bulkRefs(ids), distinctIds);
      return deletePersons(trx, project, personIds, deleteEvents, actor, deps.clock.now());
    });
    const result = { persons_found: outcome.found, persons_deleted: outcome.deleted, events_queued_for_deletion: outcome.queued > 0 };
    return respond(reply, csv, result);
  });

  app.post(`${base}/:id/split/`, {
    schema: { tags, params: PersonParams, querystring: FormatQuery, body: SplitBody, response: { 200: Success, ...errorResponses } },
    config: write,
    preValidation: absentBodyAsObject,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const { project } = projectAccessOf(request);
    const person = await personOf(deps, request);
    await splitPerson(deps.db, project, person.id, request.body?.main_distinct_id, { userId: actorOf(request).user.id }, deps.clock.now());
    return respond(reply, csv, { success: true });
  });

  app.post(`${base}/:id/update_property/`, {
    schema: { tags, params: PersonParams, querystring: UpdatePropertyQuery, body: UpdatePropertyBody, response: { 200: Person, ...errorResponses } },
    config: write,
    preValidation: absentBodyAsObject,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const body = request.body ?? {};
    const hasBodyValue = Object.prototype.hasOwnProperty.call(body, 'value');
    if (!hasBodyValue && request.query.value === undefined) throw requiredError('value');
    const key = body.key ?? request.query.key;
    if (key === undefined || key === '') throw requiredError('key');
    const value = hasBodyValue ? body.value : decodeValue(request.query.value as string);
    const { project } = projectAccessOf(request);
    const person = await personOf(deps, request);
    const updated = await setPersonProperties(deps, project, person, { [key]: value }, { userId: actorOf(request).user.id });
    return respond(reply, csv, serializePerson(updated));
  });

  app.post(`${base}/:id/delete_property/`, {
    schema: { tags, params: PersonParams, querystring: DeletePropertyQuery, body: DeletePropertyBody, response: { 200: Person, ...errorResponses } },
    config: write,
    preValidation: absentBodyAsObject,
  }, async (request, reply) => {
    const csv = wantsCsv(request);
    const key = request.body?.$unset ?? request.query.$unset;
    if (key === undefined || key === '') throw requiredError('$unset');
    const { project } = projectAccessOf(request);
    const person = await personOf(deps, request);
    const updated = await unsetPersonProperty(deps, project, person, key, { userId: actorOf(request).user.id });
    return respond(reply, csv, serializePerson(updated));
  });
};
