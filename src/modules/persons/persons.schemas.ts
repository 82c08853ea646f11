// Wire schemas of the persons endpoints.
import { Type, type Static } from 'typebox';
import { DateTime, FORMAT_QUERY, Nullable, PageQuery } from '../../wire/schemas.ts';

export const Person = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  distinct_ids: Type.Array(Type.String()),
  properties: Type.Record(Type.String(), Type.Unknown()),
  created_at: DateTime,
  uuid: Type.String({ format: 'uuid' }),
});

export const PersonParams = Type.Object({ project_id: Type.String(), id: Type.String() });

const PersonFilterQuery = Type.Object({
  distinct_id: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  search: Type.Optional(Type.String()),
  properties: Type.Optional(Type.String()),
});
export type PersonListFilters = Static<typeof PersonFilterQuery>;

export const PersonListQuery = Type.Object({ ...PageQuery.properties, ...PersonFilterQuery.properties, ...FORMAT_QUERY });

export const UpdatePersonBody = Type.Object({ properties: Type.Record(Type.String(), Type.Unknown()) });

export const DeletePersonQuery = Type.Object({ delete_events: Type.Optional(Type.String()), ...FORMAT_QUERY });

// Values may come from the query string (strings, repeated or comma-separated) or the body (lists).
export const BulkDeleteQuery = Type.Object({
  ids: Type.Optional(Type.Array(Type.String())),
  distinct_ids: Type.Optional(Type.Array(Type.String())),
  delete_events: Type.Optional(Type.String()),
  // The reference lists the flag as `delete_event`; both spellings are read.
  delete_event: Type.Optional(Type.String()),
  ...FORMAT_QUERY,
});
export const BulkDeleteBody = Type.Object({
  ids: Type.Optional(Type.Array(Type.Union([Type.String(), Type.Integer()]))),
  distinct_ids: Type.Optional(Type.Array(Type.String())),
  delete_events: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
  delete_event: Type.Optional(Type.Union([Type.Boolean(), Type.String()])),
});
export const BulkDeleteResult = Type.Object({
  persons_found: Type.Integer(),
  persons_deleted: Type.Integer(),
  events_queued_for_deletion: Type.Boolean(),
});
export type BulkDeleteResultWire = Static<typeof BulkDeleteResult>;

export const SplitBody = Type.Object({ main_distinct_id: Type.Optional(Type.String()) });
export const Success = Type.Object({ success: Type.Boolean() });

export const UpdatePropertyQuery = Type.Object({ key: Type.Optional(Type.String()), value: Type.Optional(Type.String()), ...FORMAT_QUERY });
export const UpdatePropertyBody = Type.Object({ key: Type.Optional(Type.String()), value: Type.Optional(Type.Unknown()) });
export const DeletePropertyQuery = Type.Object({ $unset: Type.Optional(Type.String()), ...FORMAT_QUERY });
export const DeletePropertyBody = Type.Object({ $unset: Type.Optional(Type.String()) });

export const ActivityQuery = Type.Object({ ...PageQuery.properties, ...FORMAT_QUERY });
export const ActivityEntry = Type.Object({
  id: Type.String(),
  user: Nullable(Type.Object({ first_name: Type.String(), email: Type.String() })),
  activity: Type.String(),
  scope: Type.String(),
  item_id: Type.String(),
  detail: Type.Object({ changes: Type.Unknown(), name: Type.Unknown() }),
  created_at: DateTime,
});

export const ValuesQuery = Type.Object({ key: Type.Optional(Type.String()), value: Type.Optional(Type.String()), ...FORMAT_QUERY });
export const ValueItem = Type.Object({ name: Type.Unknown(), count: Type.Integer() });

export const PersonCohortsQuery = Type.Object({ person_id: Type.Optional(Type.String()), ...FORMAT_QUERY });

export const TimelineQuery = Type.Object({
  events: Type.Optional(Type.String()),
  properties: Type.Optional(Type.String()),
  date_from: Type.Optional(Type.String()),
  date_to: Type.Optional(Type.String()),
  breakdown: Type.Optional(Type.String()),
  breakdown_type: Type.Optional(Type.String()),
  ...FORMAT_QUERY,
});
export type TimelineQueryInput = Static<typeof TimelineQuery>;
