// Schema atoms of the wire format shared by every resource: nullable values, dates, pages, the
// error envelope, users and members, and the path and query parameters many routes declare.
// Descriptions live here once; a PascalCase `title` names a schema in the API document.
import { Type, type TSchema } from 'typebox';
import { DEFAULT_LIMIT, MAX_LIMIT } from './page.ts';

/** The schema or null; a description goes on the union, where the document shows it. */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

export const DateTime = Type.String({ format: 'date-time' });
/** An ISO 8601 time in UTC with its meaning: `DateTime` with a description. */
export const DateTimeOf = (description: string) => Type.String({ format: 'date-time', description });

export const ErrorBody = Type.Object(
  {
    type: Type.String({
      description:
        '`validation_error`, `authentication_error`, `invalid_request`, `throttled_error` or `server_error`.',
    }),
    code: Type.String({
      description:
        'What went wrong, for programs: `invalid_input`, `required`, `unique`, `invalid_choice`, `not_authenticated`, `permission_denied`, `not_found`, `throttled`, …',
    }),
    detail: Type.String({ description: 'What went wrong, for people.' }),
    attr: Nullable(Type.String(), 'The field or parameter at fault; null when no single one is.'),
  },
  { title: 'Error', description: 'Every failure of the API answers this envelope.' },
);

// An offset beyond any row count is refused rather than overflowing the database's bigint.
export const PageQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      description: `How many results a page holds: default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT} (a larger value is clamped); below 1 is a 400.`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'How many results to skip: default 0.' }),
  ),
});

/** The page envelope of a list; named `<Item>List` after its item's title. */
export const Page = <T extends TSchema>(item: T) => {
  const name = (item as { title?: unknown }).title;
  return Type.Object(
    {
      count: Type.Integer({ description: 'The exact number of results of the whole list.' }),
      next: Nullable(Type.String(), 'The absolute URL of the next page; null on the last one.'),
      previous: Nullable(Type.String(), 'The absolute URL of the previous page; null on the first one.'),
      results: Type.Array(item, { description: 'This page of the list.' }),
    },
    typeof name === 'string' ? { title: `${name}List`, description: `A page of ${name} objects.` } : {},
  );
};

/** The `format` query parameter of every endpoint that can answer CSV (checked by wantsCsv). */
export const FORMAT_DESCRIPTION =
  '`json` (the default) or `csv` (also chosen by `Accept: text/csv`); anything else is 400. In CSV, nested objects ' +
  'become dotted columns (`properties.email`) and lists indexed ones (`distinct_ids.0`), under a header of the sorted ' +
  'union of columns. Captured values are hostile, so a text cell (header cells included) that starts with `=`, `+`, ' +
  "`-`, `@`, a tab or a carriage return gets a leading `'` and keeps its text, as OWASP advises against CSV " +
  'injection: a spreadsheet shows it as text instead of running it as a formula. JSON numbers are written as they ' +
  'are (`-5`); a string that reads as a number (`"-5"`) is text and gets the `\'`.';
// No example: the docs page fills examples into "Try it out", and every trial would answer CSV.
export const FORMAT_QUERY = { format: Type.Optional(Type.String({ description: FORMAT_DESCRIPTION })) };
export const FormatQuery = Type.Object({ ...FORMAT_QUERY });

export const PROJECT_ID = Type.String({
  description:
    "The project: its integer id (`api_token` is not an id), or `@current`, the first project of the key's user's first organization.",
});
export const ORGANIZATION_ID = Type.String({
  description: "The organization: its uuid, or `@current`, the key's user's first organization.",
});
export const ProjectParams = Type.Object({ project_id: PROJECT_ID });
export const OrganizationParams = Type.Object({ organization_id: ORGANIZATION_ID });

/** The property filter grammar, shared by every parameter that takes one. */
export const PROPERTY_FILTERS =
  'JSON: a list of property filters (all must match) or an `AND`/`OR` group `{"type": "AND", "values": […]}`, nestable, at most 20 deep and 10 000 values in all. ' +
  'A filter is `{"key", "value", "operator"?, "type"?}`: `type` `person` (the default) tests the person\'s properties; `cohort` tests membership, `value` the cohort id ' +
  '(`operator` `in`, the default, or `not_in`). Operators: `exact` (the default; a list value means any of them), `is_not`, `icontains`, `not_icontains`, `regex`, ' +
  '`not_regex`, `gt`, `gte`, `lt`, `lte`, `is_set` and `is_not_set` (no value), `is_date_exact`, `is_date_before`, `is_date_after`. ' +
  'Values are compared as data, never as SQL. A malformed filter is a 400 with `attr` `properties`.';

/** E-mail containing "@example.com", and either on a pro or team plan or in cohort 12. */
export const PROPERTY_FILTER_EXAMPLE = JSON.stringify({
  type: 'AND',
  values: [
    { key: 'email', value: '@example.com', operator: 'icontains', type: 'person' },
    {
      type: 'OR',
      values: [
        { key: 'plan', value: ['pro', 'team'], type: 'person' },
        { key: 'id', value: 12, type: 'cohort' },
      ],
    },
  ],
});

export const UserBasic = Type.Object(
  {
    id: Type.Integer({ description: "The user's integer id." }),
    uuid: Type.String({ format: 'uuid', description: "The user's uuid: what member and role membership paths name." }),
    distinct_id: Nullable(Type.String(), "The user's own distinct id."),
    first_name: Type.String(),
    last_name: Type.String(),
    email: Type.String({ description: 'Unique, compared ignoring case.' }),
    is_email_verified: Type.Boolean({ description: 'false until the user verifies their e-mail.' }),
    hedgehog_config: Nullable(
      Type.Record(Type.String(), Type.Unknown()),
      "The user's hedgehog avatar settings; null unless set.",
    ),
  },
  { title: 'UserBasic', description: 'A user, as other objects embed it.' },
);

export const OrganizationMember = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'The membership id.' }),
    user: UserBasic,
    level: Type.Integer({ description: "The member's level: 1 member, 8 admin, 15 owner." }),
    joined_at: DateTimeOf('When the user joined the organization.'),
    updated_at: DateTime,
    is_2fa_enabled: Type.Boolean(),
    has_social_auth: Type.Boolean(),
  },
  { title: 'OrganizationMember', description: "A user's membership of an organization, with their level." },
);

/** Error responses every authenticated route can give, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};
