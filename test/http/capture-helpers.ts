// Shared by the capture tests: post a payload, read back persons and events of a project.
import zlib from 'node:zlib';
import type { Db } from '../../src/db/database.ts';
import type { App } from '../../src/http/route-module.ts';

export async function post(
  app: App,
  path: string,
  payload: unknown,
  options: { gzip?: boolean; headers?: Record<string, string> } = {},
) {
  const json = Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));
  return app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/json', ...options.headers },
    payload: options.gzip ? zlib.gzipSync(json) : json,
  });
}

export interface StoredPerson {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: Date;
  version: number;
  distinct_ids: string[];
}

export async function personByDistinctId(db: Db, teamId: number, distinctId: string): Promise<StoredPerson | null> {
  const row = await db
    .selectFrom('person_distinct_ids as d')
    .innerJoin('persons as p', (join) => join.onRef('p.team_id', '=', 'd.team_id').onRef('p.id', '=', 'd.person_id'))
    .select(['p.id', 'p.uuid', 'p.properties', 'p.is_identified', 'p.created_at', 'p.version'])
    .where('d.team_id', '=', teamId)
    .where('d.distinct_id', '=', distinctId)
    .executeTakeFirst();
  if (!row) return null;
  const ids = await db
    .selectFrom('person_distinct_ids')
    .select('distinct_id')
    .where('team_id', '=', teamId)
    .where('person_id', '=', row.id)
    .orderBy('id')
    .execute();
  return { ...row, distinct_ids: ids.map((id) => id.distinct_id) };
}

export async function countPersons(db: Db, teamId: number): Promise<number> {
  const row = await db
    .selectFrom('persons')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', teamId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function eventsOf(db: Db, teamId: number) {
  return db.selectFrom('events').selectAll().where('team_id', '=', teamId).orderBy('id').execute();
}

/** The uuid of the first event stored for `distinctId`: the event that made its person, as `$creator_event_uuid` names it. */
export async function firstEventUuid(db: Db, teamId: number, distinctId: string): Promise<string> {
  const row = await db
    .selectFrom('events')
    .select('uuid')
    .where('team_id', '=', teamId)
    .where('distinct_id', '=', distinctId)
    .orderBy('id')
    .limit(1)
    .executeTakeFirstOrThrow();
  return row.uuid;
}
