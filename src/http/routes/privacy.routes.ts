// Privacy requests: export one person, delete a person's events (the person stays), delete or
// scrub a time range's events, list those tasks and cancel a pending one.
import { requestPersonEventsDeletion } from '../../modules/persons/person-events-deletion.service.ts';
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { DeletionTask, statusFilterOf } from '../../modules/deletions/deletions.schemas.ts';
import {
  EventDeletion,
  EventDeletionBody,
  EventDeletionParams,
  EventDeletionQuery,
  MAX_SCRUB_KEYS,
} from '../../modules/deletions/event-deletions.schemas.ts';
import {
  cancelTask,
  listEventDeletionsPage,
  requestEventDeletion,
} from '../../modules/deletions/event-deletions.service.ts';
import { exportPerson } from '../../modules/persons/person-export.service.ts';
import { ActivityEntry, Person, PersonParams } from '../../modules/persons/persons.schemas.ts';
import { errorResponses, Page, ProjectParams } from '../../wire/schemas.ts';
import { listPage } from '../pagination.ts';
import { actorOf, projectAccessOf } from '../plugins/access.ts';
import { emptyBodyAsObject, personTarget } from '../route-helpers.ts';
import { describe } from '../route-docs.ts';
import type { RouteModule } from '../route-module.ts';

const tag = 'privacy';
const read = { access: { scopes: ['person:read'], project: 'project_id' } };
const write = { access: { scopes: ['person:write'], project: 'project_id' } };
const SCHEDULE =
  'the deletion batch (Sunday 05:00 UTC by default, `DELETION_SCHEDULE`; `herd deletions run` runs it now)';

const PersonExportDocument = Type.Object(
  {
    person: Person,
    distinct_ids: Type.Array(Type.String()),
    events: Type.Array(
      Type.Object({
        uuid: Type.String({ format: 'uuid' }),
        event: Type.String(),
        distinct_id: Type.String(),
        properties: Type.Record(Type.String(), Type.Unknown()),
        timestamp: Type.String({ format: 'date-time' }),
      }),
      {
        description: 'Every event of every distinct id of the person (its linked personless events too), oldest first.',
      },
    ),
    activity: Type.Array(ActivityEntry, { description: "The person's activity entries, newest first." }),
    cohorts: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() }), {
      description: 'The cohorts holding the person.',
    }),
  },
  { title: 'PersonExport', description: 'Everything herd holds about one person.' },
);

export const privacyRoutes: RouteModule = (app, deps) => {
  const persons = '/api/projects/:project_id/persons';
  const eventDeletions = '/api/projects/:project_id/event_deletions';

  /** DELETE of a task of one of the two lists: 204, 404 when the list has no such task, 409 once it ran. */
  const cancelRoute = (url: string, list: 'persons' | 'events', summary: string, description: string) =>
    app.delete(
      url,
      {
        schema: {
          ...describe({
            tag,
            summary,
            description,
            returns: 'Cancelled (no body)',
            errors: { 404: 'no such task in the project', 409: 'the task has run (or is running)' },
          }),
          params: EventDeletionParams,
          response: { 204: Type.Null({ description: 'Cancelled' }), ...errorResponses, 409: errorResponses[400] },
        },
        config: write,
      },
      async (request, reply) => {
        const { project } = projectAccessOf(request);
        await cancelTask(deps, actorOf(request), { project, id: request.params.id, list });
        return reply.code(204).send(null);
      },
    );

  app.get(
    `${persons}/:id/export/`,
    {
      schema: {
        ...describe({
          tag,
          summary: "Export a person's data",
          description:
            'The person, their distinct ids, every event of those ids (oldest first), their activity and their cohorts, as one JSON attachment, streamed a page of events at a time (any number of events in constant memory). Nothing of another person. Logged (who exported whom), not written to the activity log: a read changes nothing.',
          returns: 'The person’s data (an attachment)',
          errors: { 404: 'no such person in the project' },
        }),
        params: PersonParams,
        response: { 200: PersonExportDocument, ...errorResponses },
      },
      config: read,
    },
    async (request, reply) => {
      const exported = await exportPerson(deps, actorOf(request), personTarget(request));
      return (
        reply
          .header('content-type', 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="${exported.filename}"`)
          // A stream is sent as it is read, never serialized: the schema above documents what it holds.
          .send(Readable.from(exported.body) as never)
      );
    },
  );

  app.post(
    `${persons}/:id/delete_events/`,
    {
      schema: {
        ...describe({
          tag,
          summary: "Delete a person's events, keep the person",
          description: `Queues the deletion of every event of the person's distinct ids stored up to now, run by ${SCHEDULE}. The person, their properties and distinct ids stay; events sent later still join them. Listed in \`persons/deletion_status/\` (kind \`person_events\`) until it has run, and cancellable until then.`,
          returns: 'The queued task',
          errors: { 404: 'no such person in the project' },
        }),
        params: PersonParams,
        response: { 202: DeletionTask, ...errorResponses },
      },
      config: write,
      preValidation: emptyBodyAsObject,
    },
    async (request, reply) =>
      reply.code(202).send(await requestPersonEventsDeletion(deps, actorOf(request), personTarget(request))),
  );

  cancelRoute(
    `${persons}/deletion_status/:id/`,
    'persons',
    'Cancel a queued person event deletion',
    'Cancels a pending task of `persons/deletion_status/`: it never runs and shows `cancelled`. (A deleted person stays deleted; only their events are kept.)',
  );

  app.post(
    `${eventDeletions}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'Delete or scrub the events of a time range',
          description: `Queues the deletion of the project's events with a timestamp in [\`after\`, \`before\`), optionally only those named \`event\` and matching \`properties\`, run by ${SCHEDULE}. With \`scrub_properties\` the events stay and lose those keys, from their properties and from the person properties stored on them.`,
          returns: 'The queued task',
          errors: {
            400: `\`after\` or \`before\` missing or not a date, \`before\` not later than \`after\`; a malformed \`properties\` filter or an unknown cohort (attr \`properties\`); \`scrub_properties\` empty or longer than ${MAX_SCRUB_KEYS}`,
          },
        }),
        params: ProjectParams,
        body: EventDeletionBody,
        response: { 201: EventDeletion, ...errorResponses },
      },
      config: write,
    },
    async (request, reply) =>
      reply.code(201).send(
        await requestEventDeletion(deps, actorOf(request), {
          project: projectAccessOf(request).project,
          body: request.body,
        }),
      ),
  );

  app.get(
    `${eventDeletions}/`,
    {
      schema: {
        ...describe({
          tag,
          summary: 'List event deletions',
          description:
            'The time-range deletions and scrubs asked for, and the retention runs the batch queued, newest first, with their status, who asked, and how many events each deleted or scrubbed.',
          returns: 'A page of event deletions',
          paging: true,
          errors: { 400: '`status` other than `pending`, `completed`, `cancelled` or `all` (`invalid_choice`)' },
        }),
        params: ProjectParams,
        querystring: EventDeletionQuery,
        response: { 200: Page(EventDeletion), ...errorResponses },
      },
      config: read,
    },
    async (request) => {
      const status = statusFilterOf(request.query.status);
      return listPage(request, deps.config.siteUrl, (page) =>
        listEventDeletionsPage(deps, { project: projectAccessOf(request).project, status, page }),
      );
    },
  );

  cancelRoute(
    `${eventDeletions}/:id/`,
    'events',
    'Cancel a queued event deletion',
    'Cancels a pending task of `event_deletions/`: it never runs and shows `cancelled`.',
  );
};
