// The tables a HogQL query may read, and their fields. Nothing else is reachable: a table reference
// compiles to a subquery over this project's rows only (`team_id` bound), whatever the query says.
import { sql, type RawBuilder } from 'kysely';
import type { HogType } from './types.ts';

export type TableName = 'events' | 'persons' | 'person_distinct_ids';

export interface TableDef {
  name: TableName;
  /** Plain fields and their types (the subquery's columns of the same name). */
  fields: Record<string, HogType>;
  /** The field names `*` expands to, in order. */
  star: string[];
  /** Has the virtual `person` (and `person_id`, the person's uuid) through the stored person id. */
  person: boolean;
  /** The project's rows, selecting every field (and `person_key`, the stored person id, when `person`). */
  rows(teamId: number): RawBuilder<unknown>;
}

export const TABLES: Record<TableName, TableDef> = {
  events: {
    name: 'events',
    fields: {
      uuid: 'uuid',
      event: 'string',
      distinct_id: 'string',
      properties: 'json',
      timestamp: 'datetime',
      created_at: 'datetime',
    },
    star: ['uuid', 'event', 'properties', 'timestamp', 'distinct_id', 'created_at'],
    person: true,
    rows: (teamId) =>
      sql`(select uuid, event, distinct_id, properties, "timestamp", created_at, person_id as person_key, person_properties from events where team_id = ${teamId}::integer)`,
  },
  persons: {
    name: 'persons',
    fields: { id: 'uuid', created_at: 'datetime', properties: 'json', is_identified: 'bool' },
    star: ['id', 'created_at', 'properties', 'is_identified'],
    person: false,
    rows: (teamId) =>
      sql`(select uuid as id, created_at, properties, is_identified from persons where team_id = ${teamId}::integer)`,
  },
  person_distinct_ids: {
    name: 'person_distinct_ids',
    fields: { distinct_id: 'string' },
    star: ['distinct_id', 'person_id'],
    person: true,
    // A placeholder (person_id null) is an id no person has taken yet: not a mapping.
    rows: (teamId) =>
      sql`(select distinct_id, person_id as person_key from person_distinct_ids where team_id = ${teamId}::integer and person_id is not null)`,
  },
};

export const TABLE_NAMES = Object.keys(TABLES) as TableName[];

/** The persons a `person` field reads, joined on the stored person id. */
export const personRows = (teamId: number) =>
  sql`(select id as person_key, uuid, properties, created_at from persons where team_id = ${teamId}::integer)`;

/** The fields of the virtual `person`. */
export const PERSON_FIELDS: Record<string, HogType> = { id: 'uuid', created_at: 'datetime', properties: 'json' };
