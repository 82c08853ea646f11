import { Type, type Static } from 'typebox';
import { DateTime, Nullable } from '../../wire/schemas.ts';

export const MAX_KEYS_PER_USER = 10;

export const PersonalApiKey = Type.Object({
  id: Type.String(),
  label: Type.String(),
  value: Nullable(Type.String()),
  mask_value: Type.String(),
  created_at: DateTime,
  last_used_at: Nullable(DateTime),
  user_id: Type.Integer(),
  scopes: Type.Array(Type.String()),
  scoped_organizations: Nullable(Type.Array(Type.String())),
  scoped_teams: Nullable(Type.Array(Type.Integer())),
});
export type PersonalApiKeyWire = Static<typeof PersonalApiKey>;

export const CreatePersonalApiKeyBody = Type.Object({
  label: Type.String({ minLength: 1, maxLength: 40 }),
  scopes: Type.Array(Type.String(), { maxItems: 100 }),
  scoped_organizations: Type.Optional(Nullable(Type.Array(Type.String(), { maxItems: 1000 }))),
  scoped_teams: Type.Optional(Nullable(Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { maxItems: 1000 }))),
});

export const PersonalApiKeyParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
