// The wire shapes the console reads (a subset of herd's API reference).

/** A query string's parameters; empty values are left out. */
export type Query = Record<string, string | number | boolean | undefined | null>;
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface Organization {
  id: string;
  name: string;
}

export interface Project {
  id: number;
  uuid: string;
  organization: string;
  name: string;
  created_at: string;
  data_retention_days: number | null;
}

export interface Person {
  id: number;
  uuid: string;
  name: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  created_at: string;
}

export interface UserBasic {
  first_name: string;
  email: string;
}

export interface User extends UserBasic {
  id: number;
  uuid: string;
  last_name: string;
}

export interface ActivityChange {
  type: string;
  action: string;
  field: string | null;
  before: unknown;
  after: unknown;
}

export interface ActivityEntry {
  id: string;
  user: UserBasic | null;
  activity: string;
  item_id: string;
  detail: { changes: ActivityChange[] | null; name: unknown };
  created_at: string;
}

export type DeletionStatus = 'pending' | 'completed' | 'cancelled';

export interface DeletionTask {
  id: number;
  kind: 'person' | 'person_events';
  person_id: number;
  person_uuid: string;
  distinct_ids: string[];
  status: DeletionStatus;
  created_at: string;
  delete_verified_at: string | null;
  cancelled_at: string | null;
  events_deleted: number;
  created_by: UserBasic | null;
}

export interface EventDeletion {
  id: number;
  kind: 'events' | 'scrub' | 'retention';
  after: string | null;
  before: string;
  event: string | null;
  properties: unknown;
  scrub_properties: string[] | null;
  status: DeletionStatus;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  cancelled_at: string | null;
  events_deleted: number;
  events_scrubbed: number;
  created_by: UserBasic | null;
}

export interface TimelinePoint {
  timestamp: string;
  properties: Record<string, unknown>;
  relevant_event_count: number;
}

export interface Cohort {
  id: number;
  name: string;
  description: string;
  filters: Record<string, unknown> | null;
  is_static: boolean;
  count: number;
  created_at: string;
  created_by: UserBasic | null;
}

export interface OrganizationMember {
  id: string;
  user: User;
  level: number;
  joined_at: string;
}

export interface RoleMembership {
  id: string;
  role_id: string;
  user: User;
  joined_at: string;
}

export interface Role {
  id: string;
  name: string;
  feature_flags_access_level: number;
  created_at: string;
  created_by: UserBasic | null;
  members: RoleMembership[];
}

export interface PersonalApiKey {
  id: string;
  label: string;
  value: string | null;
  mask_value: string;
  created_at: string;
  last_used_at: string | null;
  scopes: string[];
}

/** `GET /api/setup/`: whether the first account can still be created from the browser. */
export interface SetupStatus {
  open: boolean;
}

/** `POST /api/setup/` (what `herd bootstrap --json` prints). */
export interface FirstAccount {
  organization_id: string;
  project_id: number;
  project_api_key: string;
  user: { id: number; uuid: string; email: string };
  personal_api_key: string;
}

/** An event of the events list (`GET /events/`). */
export interface EventItem {
  id: string;
  distinct_id: string;
  event: string;
  timestamp: string;
  properties: Record<string, unknown>;
  person: { is_identified: boolean; distinct_ids: string[]; properties: Record<string, unknown> } | null;
}

/** A page of the events list: newest first, `next` continues by keyset. */
export interface EventPage {
  next: string | null;
  results: EventItem[];
}

/** The answer of `POST /query/` to a HogQLQuery. */
export interface QueryResult {
  results: unknown[][];
  columns: string[];
  types: unknown[];
  hasMore: boolean;
  limit: number;
  offset: number;
  hogql: string;
}
