// Wire schemas of the projects resource.
import { Type, type Static } from 'typebox';
import { validationError } from '../../errors.ts';
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
  // Checked by retentionDaysOf: as a nullable schema, body coercion would read 0 or false as null.
  data_retention_days: Type.Optional(
    Type.Unknown({
      description: `An integer: keep events this many days (1 to ${MAX_RETENTION_DAYS}); null keeps them forever.`,
    }),
  ),
});
export type UpdateProjectBodyWire = Static<typeof UpdateProjectBody>;

/** `data_retention_days` of a PATCH: null, or a whole number of days from 1 to MAX_RETENTION_DAYS. */
export function retentionDaysOf(value: unknown): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RETENTION_DAYS) {
    throw validationError(
      `Must be null or a whole number of days from 1 to ${MAX_RETENTION_DAYS}.`,
      'data_retention_days',
    );
  }
  return value;
}
