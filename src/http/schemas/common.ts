// Shared schema atoms of the wire format.
import { Type, type TSchema } from 'typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const DateTime = Type.String({ format: 'date-time' });

export const ErrorBody = Type.Object({
  type: Type.String(),
  code: Type.String(),
  detail: Type.String(),
  attr: Nullable(Type.String()),
});

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

export const UserBasic = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid' }),
  distinct_id: Nullable(Type.String()),
  first_name: Type.String(),
  last_name: Type.String(),
  email: Type.String(),
  is_email_verified: Nullable(Type.Boolean()),
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
