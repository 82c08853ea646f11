// Projects (the `teams` table): found by capture token or as an organization's first, listed for a user.
import crypto from 'node:crypto';
import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';
import type { PageRequest } from '../../wire/page.ts';
import { generateProjectToken } from '../access/api-key.tokens.ts';

export function insertProject(db: Db, input: { organizationId: string; name: string }, now: Date): Promise<TeamRow> {
  return db
    .insertInto('teams')
    .values({
      uuid: crypto.randomUUID(),
      organization_id: input.organizationId,
      name: input.name,
      api_token: generateProjectToken(),
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findTeamByToken(db: Db, token: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('api_token', '=', token).executeTakeFirst();
}

export interface ProjectRestrictions {
  organizations: string[] | null;
  teams: number[] | null;
}

/** The projects of every organization the user belongs to, within a key's restrictions, oldest first. */
export async function listProjectsOfUser(
  db: Db,
  userId: number,
  page: PageRequest,
  restrictions: ProjectRestrictions,
): Promise<{ count: number; rows: TeamRow[] }> {
  let base = db
    .selectFrom('teams as t')
    .innerJoin('organization_memberships as m', (join) =>
      join.onRef('m.organization_id', '=', 't.organization_id').on('m.user_id', '=', userId),
    );
  if (restrictions.organizations && restrictions.organizations.length > 0)
    base = base.where('t.organization_id', 'in', restrictions.organizations);
  if (restrictions.teams && restrictions.teams.length > 0) base = base.where('t.id', 'in', restrictions.teams);
  const [{ count }, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
    base.selectAll('t').orderBy('t.created_at').orderBy('t.id').limit(page.limit).offset(page.offset).execute(),
  ]);
  return { count, rows };
}

export function updateProjectRow(
  db: Db,
  id: number,
  set: { name?: string; data_retention_days?: number | null },
): Promise<TeamRow> {
  return db.updateTable('teams').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}
