// Wire schemas of the projects resource.
import { Type, type Static } from 'typebox';
import { DateTimeOf, Nullable, PROJECT_ID } from '../../wire/schemas.ts';

export const Project = Type.Object(
  {
    id: Type.Integer({ description: 'The id project paths take (`project_id`).' }),
    uuid: Type.String({ format: 'uuid' }),
    organization: Type.String({ format: 'uuid', description: 'The organization that owns it.' }),
    name: Type.String(),
    api_token: Type.String({
      description:
        'The project token (`phc_…`) capture and the SDKs authenticate with. Public by design: it is put in web pages.',
    }),
    created_at: DateTimeOf('When it was created.'),
    data_retention_days: Nullable(
      Type.Integer(),
      "How many days of events are kept: the deletion batch deletes the project's events older than that (by event timestamp). null keeps them forever.",
    ),
  },
  { title: 'Project', description: 'A project (a team): its persons, events and cohorts are its own.' },
);
export type ProjectWire = Static<typeof Project>;

export const CreateProjectBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Its name, 1 to 200 characters.' }),
  organization_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description:
        "The organization to create it in (the caller must be an admin or owner there); default the key's user's first organization. One that does not exist is a 400 on this field.",
    }),
  ),
});

export const ProjectIdParams = Type.Object({ id: PROJECT_ID });

export const MAX_RETENTION_DAYS = 36_500;

export const UpdateProjectBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Its name, 1 to 200 characters.' })),
  data_retention_days: Type.Optional(
    Nullable(
      Type.Integer({ minimum: 1, maximum: MAX_RETENTION_DAYS }),
      `Keep events this many days (1 to ${MAX_RETENTION_DAYS}); null keeps them forever.`,
    ),
  ),
});
export type UpdateProjectBodyWire = Static<typeof UpdateProjectBody>;
