// Frozen in time: the whole data model of every area. Every tenant table leads its keys and
// indexes with organization_id or team_id, so each could be distributed by that column.
import { sql, type Kysely } from 'kysely';

const statements = [
  sql`create table organizations (
    id uuid primary key,
    name text not null,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`,

  sql`create table users (
    id bigint generated always as identity primary key,
    uuid uuid not null unique,
    email text not null,
    distinct_id text not null unique,
    first_name text not null default '',
    last_name text not null default '',
    is_email_verified boolean,
    is_active boolean not null default true,
    hedgehog_config jsonb,
    role_at_organization text,
    is_2fa_enabled boolean not null default false,
    has_social_auth boolean not null default false,
    last_login timestamptz,
    created_at timestamptz not null default now()
  )`,
  sql`create unique index users_email_lower on users (lower(email))`,

  sql`create table organization_memberships (
    organization_id uuid not null references organizations (id) on delete cascade,
    id uuid not null,
    user_id bigint not null references users (id) on delete cascade,
    level smallint not null default 1 check (level in (1, 8, 15)),
    joined_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (organization_id, id),
    unique (organization_id, user_id)
  )`,
  sql`create index organization_memberships_user on organization_memberships (user_id, joined_at)`,

  sql`create table teams (
    id integer generated always as identity primary key,
    uuid uuid not null unique,
    organization_id uuid not null references organizations (id) on delete cascade,
    name text not null,
    api_token text not null unique,
    timezone text not null default 'UTC',
    person_count bigint not null default 0,
    created_at timestamptz not null default now()
  )`,
  sql`create index teams_organization on teams (organization_id, created_at, id)`,

  sql`create table personal_api_keys (
    id text primary key,
    user_id bigint not null references users (id) on delete cascade,
    label text not null,
    secure_value text not null unique,
    mask_value text not null,
    scopes text[] not null,
    scoped_organizations uuid[],
    scoped_teams integer[],
    created_at timestamptz not null default now(),
    last_used_at timestamptz
  )`,
  sql`create index personal_api_keys_user on personal_api_keys (user_id, created_at)`,

  sql`create table roles (
    organization_id uuid not null references organizations (id) on delete cascade,
    id uuid not null,
    name text not null,
    feature_flags_access_level smallint not null default 37 check (feature_flags_access_level in (21, 37)),
    created_at timestamptz not null default now(),
    created_by_id bigint references users (id) on delete set null,
    primary key (organization_id, id)
  )`,
  sql`create unique index roles_name_ci on roles (organization_id, lower(name))`,
  sql`create index roles_created on roles (organization_id, created_at, id)`,

  sql`create table role_memberships (
    organization_id uuid not null,
    id uuid not null,
    role_id uuid not null,
    organization_member_id uuid not null,
    user_id bigint not null references users (id) on delete cascade,
    joined_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    primary key (organization_id, id),
    unique (organization_id, role_id, user_id),
    foreign key (organization_id, role_id) references roles (organization_id, id) on delete cascade,
    foreign key (organization_id, organization_member_id)
      references organization_memberships (organization_id, id) on delete cascade
  )`,
  sql`create index role_memberships_role on role_memberships (organization_id, role_id, joined_at, id)`,
  sql`create index role_memberships_member on role_memberships (organization_id, organization_member_id)`,

  sql`create table feature_flags (
    team_id integer not null references teams (id) on delete cascade,
    id integer generated always as identity,
    key text not null,
    created_at timestamptz not null default now(),
    primary key (team_id, id),
    unique (team_id, key)
  )`,
  sql`create table feature_flag_role_access (
    organization_id uuid not null,
    role_id uuid not null,
    team_id integer not null,
    feature_flag_id integer not null,
    primary key (organization_id, role_id, team_id, feature_flag_id),
    foreign key (organization_id, role_id) references roles (organization_id, id) on delete cascade,
    foreign key (team_id, feature_flag_id) references feature_flags (team_id, id) on delete cascade
  )`,

  sql`create table persons (
    team_id integer not null references teams (id) on delete cascade,
    id bigint generated always as identity,
    uuid uuid not null,
    properties jsonb not null default '{}'::jsonb,
    is_identified boolean not null default false,
    version bigint not null default 0,
    created_at timestamptz not null default now(),
    primary key (team_id, id),
    unique (team_id, uuid)
  )`,
  sql`create index persons_newest on persons (team_id, created_at desc, id desc)`,

  sql`create table person_distinct_ids (
    team_id integer not null,
    distinct_id text not null,
    person_id bigint not null,
    id bigint generated always as identity,
    version bigint not null default 0,
    primary key (team_id, distinct_id),
    foreign key (team_id, person_id) references persons (team_id, id) on delete cascade
  )`,
  sql`create index person_distinct_ids_person on person_distinct_ids (team_id, person_id, id)`,

  sql`create table events (
    team_id integer not null references teams (id) on delete cascade,
    id bigint generated always as identity,
    uuid uuid not null,
    event text not null,
    distinct_id text not null,
    person_id bigint,
    properties jsonb not null default '{}'::jsonb,
    person_properties jsonb not null default '{}'::jsonb,
    timestamp timestamptz not null,
    created_at timestamptz not null default now(),
    primary key (team_id, id),
    unique (team_id, uuid)
  )`,
  sql`create index events_event_time on events (team_id, event, timestamp)`,
  sql`create index events_person_time on events (team_id, person_id, timestamp)`,
  sql`create index events_distinct_id on events (team_id, distinct_id)`,

  sql`create table cohorts (
    team_id integer not null references teams (id) on delete cascade,
    id integer generated always as identity,
    name text not null,
    description text not null default '',
    filters jsonb,
    is_static boolean not null default false,
    created_by_id bigint references users (id) on delete set null,
    created_at timestamptz not null default now(),
    primary key (team_id, id)
  )`,
  sql`create table cohort_people (
    team_id integer not null,
    cohort_id integer not null,
    person_id bigint not null,
    primary key (team_id, cohort_id, person_id),
    foreign key (team_id, cohort_id) references cohorts (team_id, id) on delete cascade,
    foreign key (team_id, person_id) references persons (team_id, id) on delete cascade
  )`,
  sql`create index cohort_people_person on cohort_people (team_id, person_id)`,

  sql`create table deletion_tasks (
    team_id integer not null references teams (id) on delete cascade,
    id bigint generated always as identity,
    deletion_type text not null default 'person',
    person_uuid uuid not null,
    person_id bigint not null,
    distinct_ids text[] not null default '{}',
    created_by_id bigint references users (id) on delete set null,
    created_at timestamptz not null default now(),
    events_deleted bigint not null default 0,
    delete_verified_at timestamptz,
    primary key (team_id, id)
  )`,
  sql`create index deletion_tasks_pending on deletion_tasks (team_id, created_at) where delete_verified_at is null`,
  sql`create index deletion_tasks_person on deletion_tasks (team_id, person_uuid)`,

  sql`create table activity_log (
    organization_id uuid not null references organizations (id) on delete cascade,
    id uuid not null,
    team_id integer,
    scope text not null,
    item_id text not null,
    activity text not null,
    user_id bigint references users (id) on delete set null,
    detail jsonb,
    created_at timestamptz not null default now(),
    primary key (organization_id, id)
  )`,
  sql`create index activity_log_scope on activity_log (organization_id, team_id, scope, created_at desc, id)`,
  sql`create index activity_log_item on activity_log (organization_id, team_id, scope, item_id, created_at desc, id)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'activity_log',
    'deletion_tasks',
    'cohort_people',
    'cohorts',
    'events',
    'person_distinct_ids',
    'persons',
    'feature_flag_role_access',
    'feature_flags',
    'role_memberships',
    'roles',
    'personal_api_keys',
    'teams',
    'organization_memberships',
    'users',
    'organizations',
  ]) {
    await sql`drop table if exists ${sql.table(table)} cascade`.execute(db);
  }
}
