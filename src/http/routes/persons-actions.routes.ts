// Person actions: bulk delete, split, update one property, delete one property.
import { requiredError, validationError } from '../../errors.ts';
import { setPersonProperties, unsetPersonProperty } from '../../modules/persons/person-updates.service.ts';
import { bulkDeletePersons, splitPerson } from '../../modules/persons/persons.service.ts';
import {
  BulkDeleteBody,
  BulkDeleteQuery,
  BulkDeleteResult,
  DeletePropertyBody,
  DeletePropertyQuery,
  Person,
  PersonParams,
  PERSONS_CSV_EXAMPLE,
  SplitBody,
  Success,
  UpdatePropertyBody,
  UpdatePropertyQuery,
} from '../../modules/persons/persons.schemas.ts';
import { wantsCsv } from '../../wire/csv.ts';
import { errorResponses, FormatQuery, ProjectParams } from '../../wire/schemas.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { booleanParam, emptyBodyAsObject, personTarget, requiredText, respond } from '../route-helpers.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'persons';
const NO_PERSON = 'no such person in the project';
const BAD_ID = 'an `id` that is neither an integer nor a uuid';
const write = { access: { scopes: ['person:write'], project: 'project_id' } };
const BULK_LIMIT = 100;

/** `ids=1&ids=2` and `ids=1,2` alike. */
const splitCommas = (values: string[] | undefined) =>
  values
    ?.flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter((value) => value !== '');

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

  app.post(
    `${base}/bulk_delete/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete persons in bulk',
          description:
            'Deletes every person of the project that `ids` or `distinct_ids` name (the union of both), in one transaction. Each is recorded as deleted in the activity; `delete_events=true` queues the deletion of their events. ' +
            'The lists come from the JSON body or the query string (the body wins); the body may be left out.',
          returns: 'What was deleted',
          csv: 'events_queued_for_deletion,persons_deleted,persons_found\nFalse,2,2\n',
          errors: {
            400: `neither \`ids\` nor \`distinct_ids\`; more than ${BULK_LIMIT} of either; a body that is not a JSON object`,
          },
        }),
        params: ProjectParams,
        querystring: BulkDeleteQuery,
        body: BulkDeleteBody,
        response: { 200: BulkDeleteResult, ...errorResponses },
      },
      config: write,
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const body = request.body ?? {};
      const distinctIds = body.distinct_ids ?? splitCommas(request.query.distinct_ids) ?? [];
      const ids = body.ids ?? splitCommas(request.query.ids) ?? [];
      if (distinctIds.length > BULK_LIMIT)
        throw validationError(`You can only pass ${BULK_LIMIT} distinct_ids in one call`, 'distinct_ids');
      if (ids.length > BULK_LIMIT) throw validationError(`You can only pass ${BULK_LIMIT} ids in one call`, 'ids');
      if (distinctIds.length === 0 && ids.length === 0)
        throw validationError('You need to specify either distinct_ids or ids');
      const deleteEvents = booleanParam(
        body.delete_events ?? body.delete_event ?? request.query.delete_events ?? request.query.delete_event,
        'delete_events',
      );
      const result = await bulkDeletePersons(deps, actorOf(request), {
        project: projectAccessOf(request).project,
        ids,
        distinctIds,
        deleteEvents,
      });
      return respond(reply, csv, result);
    },
  );

  // An action on one person: its body may be absent; it answers JSON, or CSV when asked.
  const personAction = { config: write, preValidation: emptyBodyAsObject };

  app.post(
    `${base}/:id/split/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Split a person',
          description:
            'Every distinct id but `main_distinct_id` (default the first) moves to a new person of its own, with empty properties; the person keeps its properties and that id. The body may be left out.',
          returns: 'Done',
          csv: 'success\nTrue\n',
          errors: { 400: `${BAD_ID}; a \`main_distinct_id\` the person does not have`, 404: NO_PERSON },
        }),
        params: PersonParams,
        querystring: FormatQuery,
        body: SplitBody,
        response: { 200: Success, ...errorResponses },
      },
      ...personAction,
    },
    async (request, reply) =>
      respond(
        reply,
        wantsCsv(request),
        await splitPerson(deps, actorOf(request), {
          ...personTarget(request),
          mainDistinctId: request.body?.main_distinct_id,
        }),
      ),
  );

  app.post(
    `${base}/:id/update_property/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Set one person property',
          description:
            'Sets `key` to `value` as a `$set` event would; `key` and `value` from the query string (the value JSON-decoded when it parses) or the JSON body (which wins).',
          returns: 'The updated person',
          csv: PERSONS_CSV_EXAMPLE,
          errors: { 400: `\`key\` or \`value\` missing (\`required\`); ${BAD_ID}`, 404: NO_PERSON },
        }),
        params: PersonParams,
        querystring: UpdatePropertyQuery,
        body: UpdatePropertyBody,
        response: { 200: Person, ...errorResponses },
      },
      ...personAction,
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const body = request.body ?? {};
      const hasBodyValue = Object.prototype.hasOwnProperty.call(body, 'value');
      if (!hasBodyValue && request.query.value === undefined) throw requiredError('value');
      const key = requiredText(body.key ?? request.query.key, 'key');
      const value = hasBodyValue ? body.value : decodeValue(request.query.value as string);
      return respond(
        reply,
        csv,
        await setPersonProperties(deps, actorOf(request), { ...personTarget(request), properties: { [key]: value } }),
      );
    },
  );

  app.post(
    `${base}/:id/delete_property/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Remove one person property',
          description:
            'Removes the property `$unset` names, as a `$delete_person_property` event would; from the query string or the JSON body (which wins).',
          returns: 'The updated person',
          csv: PERSONS_CSV_EXAMPLE,
          errors: { 400: `\`$unset\` missing (\`required\`); ${BAD_ID}`, 404: NO_PERSON },
        }),
        params: PersonParams,
        querystring: DeletePropertyQuery,
        body: DeletePropertyBody,
        response: { 200: Person, ...errorResponses },
      },
      ...personAction,
    },
    async (request, reply) => {
      const csv = wantsCsv(request);
      const key = requiredText(request.body?.$unset ?? request.query.$unset, '$unset');
      return respond(reply, csv, await unsetPersonProperty(deps, actorOf(request), { ...personTarget(request), key }));
    },
  );
};
