import { Type, type Static } from 'typebox';
import { DateTimeOf, Nullable } from '../../wire/schemas.ts';

export const MAX_KEYS_PER_USER = 10;

export const PersonalApiKey = Type.Object(
  {
    id: Type.String(),
    label: Type.String(),
    value: Nullable(
      Type.String(),
      'The key itself (`phx_…`): only in the answer to its creation, null afterwards. Only its SHA-256 is stored.',
    ),
    mask_value: Type.String({ description: 'Its first 4 characters, `...` and its last 4: enough to recognize it.' }),
    created_at: DateTimeOf('When it was created.'),
    last_used_at: Nullable(
      Type.String({ format: 'date-time' }),
      'When it last authenticated a request (updated at most once an hour); null if never.',
    ),
    user_id: Type.Integer({ description: 'The user it acts as.' }),
    scopes: Type.Array(Type.String(), {
      description: 'What it may do: `<object>:read|write` (`write` grants `read` too), or `*` for everything.',
    }),
    scoped_organizations: Nullable(
      Type.Array(Type.String()),
      'The organizations it is limited to; null or empty: every organization of its user.',
    ),
    scoped_teams: Nullable(
      Type.Array(Type.Integer()),
      'The projects it is limited to; null or empty: every project of its user.',
    ),
  },
  { title: 'PersonalApiKey', description: 'A personal API key of the calling user.' },
);
export type PersonalApiKeyWire = Static<typeof PersonalApiKey>;

export const CreatePersonalApiKeyBody = Type.Object({
  label: Type.String({ minLength: 1, maxLength: 40, description: 'A name for it, 1 to 40 characters.' }),
  scopes: Type.Array(Type.String(), {
    maxItems: 100,
    description:
      'What it may do, e.g. `["person:read", "cohort:write"]` or `["*"]`; each must be granted by the key that creates it (`*` only by `*`).',
  }),
  scoped_organizations: Type.Optional(
    Nullable(
      Type.Array(Type.String(), { maxItems: 1000 }),
      "Organization ids to limit it to; default the creating key's own limits.",
    ),
  ),
  scoped_teams: Type.Optional(
    Nullable(
      Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { maxItems: 1000 }),
      "Project ids to limit it to; default the creating key's own limits.",
    ),
  ),
});

export const PersonalApiKeyParams = Type.Object({
  id: Type.String({ maxLength: 100, description: "The key's id (not its value). Another user's key is a 404." }),
});
