// Row types of every table, as Kysely sees them. Wire types live with each module, apart from these.
import type { ColumnType, Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = unknown> = ColumnType<T, string | T, string | T>;
export type JsonObject = Record<string, unknown>;

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: Generated<number>;
  uuid: string;
  email: string;
  distinct_id: string;
  first_name: Generated<string>;
  last_name: Generated<string>;
  is_email_verified: boolean | null;
  is_active: Generated<boolean>;
  hedgehog_config: Json<JsonObject | null> | null;
  role_at_organization: string | null;
  is_2fa_enabled: Generated<boolean>;
  has_social_auth: Generated<boolean>;
  last_login: Timestamp | null;
  created_at: Timestamp;
}

export interface OrganizationMembershipsTable {
  organization_id: string;
  id: string;
  user_id: number;
  level: Generated<number>;
  joined_at: Timestamp;
  updated_at: Timestamp;
}

export interface TeamsTable {
  id: Generated<number>;
  uuid: string;
  organization_id: string;
  name: string;
  api_token: string;
  timezone: Generated<string>;
  person_count: Generated<number>;
  created_at: Timestamp;
  /** Events older than this many days are deleted by the deletion batch; null keeps them (migration 0013). */
  data_retention_days: Generated<number | null>;
}

export interface PersonalApiKeysTable {
  id: string;
  user_id: number;
  label: string;
  secure_value: string;
  mask_value: string;
  scopes: string[];
  scoped_organizations: string[] | null;
  scoped_teams: number[] | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
}

export interface RolesTable {
  organization_id: string;
  id: string;
  name: string;
  feature_flags_access_level: Generated<number>;
  created_at: Timestamp;
  created_by_id: number | null;
}

export interface RoleMembershipsTable {
  organization_id: string;
  id: string;
  role_id: string;
  organization_member_id: string;
  user_id: number;
  joined_at: Timestamp;
  updated_at: Timestamp;
}

export interface FeatureFlagsTable {
  team_id: number;
  id: Generated<number>;
  key: string;
  created_at: Timestamp;
}

export interface FeatureFlagRoleAccessTable {
  organization_id: string;
  role_id: string;
  team_id: number;
  feature_flag_id: number;
}

export interface PersonsTable {
  team_id: number;
  id: Generated<number>;
  uuid: string;
  properties: Json<JsonObject>;
  is_identified: Generated<boolean>;
  version: Generated<number>;
  created_at: Timestamp;
  /** `properties ->> 'email'` and `->> 'name'`, kept by PostgreSQL for the search indexes (migration 0020). */
  email: GeneratedAlways<string | null>;
  name: GeneratedAlways<string | null>;
}

export interface PersonDistinctIdsTable {
  team_id: number;
  distinct_id: string;
  /** null: a placeholder for an id used only by personless events so far (migration 0007). */
  person_id: number | null;
  id: Generated<number>;
  version: Generated<number>;
}

export interface EventsTable {
  team_id: number;
  id: Generated<number>;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: number | null;
  /** person_id, or a personless event's negative key of its distinct id (migration 0018; src/db/person-key.ts). */
  person_key: number;
  properties: Json<JsonObject>;
  person_properties: Json<JsonObject>;
  timestamp: Timestamp;
  created_at: Timestamp;
  /** A pageview's `$current_url` or a screen's `$screen_name`, its first 400 characters (migration 0011). */
  page: GeneratedAlways<string | null>;
}

export interface CohortsTable {
  team_id: number;
  id: Generated<number>;
  name: string;
  description: Generated<string>;
  filters: Json<JsonObject | null> | null;
  is_static: Generated<boolean>;
  created_by_id: number | null;
  created_at: Timestamp;
}

export interface CohortPeopleTable {
  team_id: number;
  cohort_id: number;
  person_id: number;
}

export interface DeletionTasksTable {
  team_id: number;
  id: Generated<number>;
  deletion_type: Generated<string>;
  person_uuid: string | null;
  person_id: number | null;
  distinct_ids: Generated<string[]>;
  created_by_id: number | null;
  created_at: Timestamp;
  events_deleted: Generated<number>;
  delete_verified_at: Timestamp | null;
  // Migration 0013: what the other kinds of task select, their scrub count and their life cycle.
  events_until: Timestamp | null;
  range_after: Timestamp | null;
  range_before: Timestamp | null;
  event: string | null;
  properties: Json<JsonObject | null> | null;
  scrub_properties: string[] | null;
  events_scrubbed: Generated<number>;
  started_at: Timestamp | null;
  cancelled_at: Timestamp | null;
}

export interface ActivityLogTable {
  organization_id: string;
  id: string;
  team_id: number | null;
  scope: string;
  item_id: string;
  activity: string;
  user_id: number | null;
  detail: Json<JsonObject | null> | null;
  created_at: Timestamp;
}

export interface EventDefinitionsTable {
  team_id: number;
  id: Generated<string>;
  name: string;
  created_at: Timestamp;
  last_seen_at: Timestamp;
}

/** `kind` 1: an event property; 2: a person property (migration 0017). */
export interface PropertyDefinitionsTable {
  team_id: number;
  id: Generated<string>;
  kind: number;
  name: string;
  property_type: string | null;
}

export interface EventPropertiesTable {
  team_id: number;
  event: string;
  property: string;
}

export interface InsightsTable {
  team_id: number;
  id: Generated<number>;
  short_id: string;
  name: Generated<string>;
  description: Generated<string>;
  filters: Json<JsonObject>;
  created_by_id: number | null;
  created_at: Timestamp;
  last_modified_by_id: number | null;
  last_modified_at: Timestamp;
}

/** A key's requests counted in one budget's window, across every process (migration 0012). */
export interface LimitWindowsTable {
  subject: string;
  budget: string;
  window_start: Timestamp;
  hits: number;
  expires_at: Timestamp;
}

/** A heavy-request slot held by one process until released or lapsed (migration 0012). */
export interface HeavySlotLeasesTable {
  subject: string;
  slot: number;
  holder: string;
  taken_at: Timestamp;
  expires_at: Timestamp;
}

export interface Database {
  organizations: OrganizationsTable;
  users: UsersTable;
  organization_memberships: OrganizationMembershipsTable;
  teams: TeamsTable;
  personal_api_keys: PersonalApiKeysTable;
  roles: RolesTable;
  role_memberships: RoleMembershipsTable;
  feature_flags: FeatureFlagsTable;
  feature_flag_role_access: FeatureFlagRoleAccessTable;
  persons: PersonsTable;
  person_distinct_ids: PersonDistinctIdsTable;
  events: EventsTable;
  cohorts: CohortsTable;
  cohort_people: CohortPeopleTable;
  deletion_tasks: DeletionTasksTable;
  activity_log: ActivityLogTable;
  event_definitions: EventDefinitionsTable;
  property_definitions: PropertyDefinitionsTable;
  event_properties: EventPropertiesTable;
  insights: InsightsTable;
  limit_windows: LimitWindowsTable;
  heavy_slot_leases: HeavySlotLeasesTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type UserRow = Selectable<UsersTable>;
export type MembershipRow = Selectable<OrganizationMembershipsTable>;
export type TeamRow = Selectable<TeamsTable>;
export type ApiKeyRow = Selectable<PersonalApiKeysTable>;
export type RoleRow = Selectable<RolesTable>;
export type RoleMembershipRow = Selectable<RoleMembershipsTable>;
export type PersonRow = Selectable<PersonsTable>;
export type EventRow = Selectable<EventsTable>;
export type NewEvent = Insertable<EventsTable>;
export type CohortRow = Selectable<CohortsTable>;
export type DeletionTaskRow = Selectable<DeletionTasksTable>;
export type ActivityRow = Selectable<ActivityLogTable>;
export type InsightRow = Selectable<InsightsTable>;
export type PersonUpdate = Updateable<PersonsTable>;
