// Saved insights of a project.
import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.ts';
import { containsPattern } from '../../db/like-pattern.ts';
import type { InsightRow, JsonObject } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';

export async function listInsightRows(
  db: Db,
  teamId: number,
  input: { search?: string; shortId?: string; page: PageRequest },
): Promise<{ count: number; rows: InsightRow[] }> {
  let base = db.selectFrom('insights').where('team_id', '=', teamId);
  if (input.search) {
    const pattern = containsPattern(input.search);
    base = base.where(sql<SqlBool>`(name ilike ${pattern} or description ilike ${pattern})`);
  }
  if (input.shortId !== undefined) base = base.where('short_id', '=', input.shortId);
  const [total, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .selectAll()
      .orderBy('last_modified_at', 'desc')
      .orderBy('id', 'desc')
      .limit(input.page.limit)
      .offset(input.page.offset)
      .execute(),
  ]);
  return { count: Number(total.n), rows };
}

export function findInsight(db: Db, teamId: number, id: number): Promise<InsightRow | undefined> {
  return db.selectFrom('insights').selectAll().where('team_id', '=', teamId).where('id', '=', id).executeTakeFirst();
}

export interface NewInsight {
  teamId: number;
  shortId: string;
  name: string;
  description: string;
  filters: JsonObject;
  userId: number;
  now: Date;
}

export function insertInsight(db: Db, insight: NewInsight): Promise<InsightRow> {
  return db
    .insertInto('insights')
    .values({
      team_id: insight.teamId,
      short_id: insight.shortId,
      name: insight.name,
      description: insight.description,
      filters: JSON.stringify(insight.filters),
      created_by_id: insight.userId,
      created_at: insight.now,
      last_modified_by_id: insight.userId,
      last_modified_at: insight.now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function updateInsightRow(
  db: Db,
  teamId: number,
  id: number,
  change: { name?: string; description?: string; filters?: JsonObject; userId: number; now: Date },
): Promise<InsightRow | undefined> {
  return db
    .updateTable('insights')
    .set({
      name: change.name,
      description: change.description,
      filters: change.filters === undefined ? undefined : JSON.stringify(change.filters),
      last_modified_by_id: change.userId,
      last_modified_at: change.now,
    })
    .where('team_id', '=', teamId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

export function deleteInsightRow(db: Db, teamId: number, id: number): Promise<InsightRow | undefined> {
  return db.deleteFrom('insights').where('team_id', '=', teamId).where('id', '=', id).returningAll().executeTakeFirst();
}
