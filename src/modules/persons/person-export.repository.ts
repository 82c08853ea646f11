// The events of one person, oldest first, in keyset pages: what a person's export streams.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { JsonObject } from '../../db/schema.ts';

export interface ExportedEvent {
  id: number;
  uuid: string;
  event: string;
  distinct_id: string;
  properties: JsonObject;
  timestamp: Date;
}

export interface EventCursor {
  timestamp: Date;
  id: number;
}

/**
 * One page of the person's events after `cursor`, by (timestamp, id): those attributed to the
 * person (the personless events linked to it included) and those of its distinct ids still without
 * a person. Two ordered scans, each bounded by the page size (the person's one walks the index
 * (team_id, person_key, timestamp, id), on Citus on the person's one shard), merged: a page never reads more than twice its size.
 */
export async function readPersonEventPage(
  db: Db,
  scope: { teamId: number; personId: number; distinctIds: string[] },
  cursor: EventCursor | null,
  limit: number,
): Promise<ExportedEvent[]> {
  const after = cursor ? sql`and (timestamp, id) > (${cursor.timestamp}::timestamptz, ${cursor.id}::bigint)` : sql``;
  const columns = sql`id, uuid, event, distinct_id, properties, timestamp`;
  const { rows } = await sql<ExportedEvent>`
    select * from (
      (select ${columns} from events
        where team_id = ${scope.teamId}::integer and person_key = ${scope.personId}::bigint ${after}
        order by timestamp, id limit ${limit}::integer)
      union all
      (select ${columns} from events
        where team_id = ${scope.teamId}::integer and person_id is null
          and distinct_id = any(${scope.distinctIds}::text[]) ${after}
        order by timestamp, id limit ${limit}::integer)
    ) page order by timestamp, id limit ${limit}::integer`.execute(db);
  return rows.map((row) => ({ ...row, id: Number(row.id), timestamp: new Date(row.timestamp) }));
}
