// Schema atoms of the wire format shared by every resource: nullable values, dates, pages, the
// error envelope, users and members, and the path and query parameters many routes declare.
import { Type, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = Type.String({ format: 'date-time' });

export const ErrorBody = Type.Object({
  type: Type.String(),
  code: Type.String(),
  detail: Type.String(),
  attr: Nullable(Type.String()),
});

// An offset beyond any row count is refused rather than overflowing the database's bigint.
export const PageQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});

export const Page = <T extends TSchema>(item: T) =>
  Type.Object({
    count: Type.Integer(),
    next: Nullable(Type.String()),
    previous: Nullable(Type.String()),
    results: Type.Array(item),
  });

/** The `format` query parameter of every endpoint that can answer CSV (checked by wantsCsv). */
export const FORMAT_QUERY = {
  format: Type.Optional(
    Type.String({
      description:
        '`json` (the default) or `csv` (also chosen by `Accept: text/csv`); anything else is 400. In CSV, nested objects ' +
        'become dotted columns (`properties.email`) and lists indexed ones (`distinct_ids.0`), under a header of the sorted ' +
        'union of columns. Captured values are hostile, so a text cell (header cells included) that starts with `=`, `+`, ' +
        '`-`, `@`, a tab or a carriage return gets a leading `\'` and keeps its text, as OWASP advises against CSV ' +
        'injection: a spreadsheet shows it as text instead of running it as a formula. JSON numbers are written as they ' +
        'are (`-5`); a string that reads as a number (`"-5"`) is text and gets the `\'`.',
      examples: ['csv'],
    }),
  ),
};
export const FormatQuery = Type.Object({ ...FORMAT_QUERY });

export const ProjectParams = Type.Object({ project_id: Type.String() });
export const OrganizationParams = Type.Object({ organization_id: Type.String() });

export const UserBasic = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  distinct_id: Nullable(Type.String()),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  is_email_verified: Type.Boolean(),
  hedgehog_config: Nullable(Type.Record(Type.String(), Type.Unknown())),
});

export const OrganizationMember = Type.Object({
  id: Type.String({ format: 'uuid' }),
  user: UserBasic,
  level: Type.Integer(),
  joined_at: DateTime,
  updated_at: DateTime,
  is_2fa_enabled: Type.Boolean(),
  has_social_auth: Type.Boolean(),
});

/** Error responses every authenticated route can give, for the OpenAPI document. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
  429: ErrorBody,
};
