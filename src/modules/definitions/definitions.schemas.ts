// Wire schemas of the definitions: event names, property keys, and the values seen for a key.
import { Type, type Static } from 'typebox';
import { DateTimeOf, Nullable, PageQuery } from '../../wire/schemas.ts';

const SEARCH = Type.Optional(
  Type.String({
    maxLength: 200,
    description:
      'Names containing every whitespace-separated term, ignoring case; `%`, `_` and `\\` match themselves. At most 200 characters.',
  }),
);

export const EventDefinition = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ description: 'The event name, as captured.' }),
    created_at: DateTimeOf('When herd first stored an event of this name.'),
    last_seen_at: DateTimeOf('When herd last stored one, to the hour (the start of that hour).'),
    volume_30_day: Type.Integer({ description: 'How many events of this name have a timestamp in the last 30 days.' }),
  },
  { title: 'EventDefinition', description: 'An event name seen in the project.' },
);
export type EventDefinitionWire = Static<typeof EventDefinition>;

export const EventDefinitionQuery = Type.Object({ ...PageQuery.properties, search: SEARCH });

export const PROPERTY_TYPES = ['String', 'Numeric', 'DateTime', 'Boolean'] as const;

export const PropertyDefinition = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    name: Type.String({ description: 'The property key.' }),
    is_numerical: Type.Boolean({ description: 'true when `property_type` is `Numeric`.' }),
    property_type: Nullable(
      Type.Union(PROPERTY_TYPES.map((type) => Type.Literal(type))),
      'Inferred from the first typed value seen: a number is `Numeric`, a boolean (or the text `true`/`false`) `Boolean`, an ISO 8601 date or date-time text `DateTime`, other text `String`; null while only null, object or list values were seen.',
    ),
    is_seen_on_filtered_events: Nullable(
      Type.Boolean(),
      'With `event_names`: whether one of those events carried the key; otherwise null.',
    ),
  },
  { title: 'PropertyDefinition', description: 'A property key seen in the project, on events or on persons.' },
);
export type PropertyDefinitionWire = Static<typeof PropertyDefinition>;

export const PropertyDefinitionQuery = Type.Object({
  ...PageQuery.properties,
  type: Type.Optional(
    Type.String({
      description:
        '`event` (the default): keys of event properties; `person`: keys of person properties (`$set`, `$set_once`, person updates). Anything else is a 400.',
    }),
  ),
  search: SEARCH,
  event_names: Type.Optional(
    Type.String({
      description:
        'JSON list of event names (only with `type=event`): only the keys seen on those events. Not a list of strings: a 400.',
      examples: ['["$pageview"]'],
    }),
  ),
  is_numerical: Type.Optional(
    Type.String({ description: '`true`: only `Numeric` keys; `false`: only the others. Anything else is a 400.' }),
  ),
});

export const PropertyValues = Type.Array(
  Type.Object(
    { name: Type.String({ description: 'A value, as text.' }) },
    { title: 'EventPropertyValue', description: 'A value seen for the key.' },
  ),
  { title: 'EventPropertyValueList', description: 'Values of an event property, most frequent first.' },
);

export const PropertyValuesQuery = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 400, description: 'The event property key: required.' })),
  event_name: Type.Optional(
    Type.Array(Type.String({ maxLength: 400 }), {
      maxItems: 100,
      description: 'Only events of these names (repeat the parameter for several, at most 100).',
    }),
  ),
  value: Type.Optional(
    Type.String({ maxLength: 200, description: 'Only values containing this text, ignoring case.' }),
  ),
});
