import type { Db } from '../../db/database.ts';
import type { TeamRow } from '../../db/schema.ts';

export function findTeam(db: Db, id: number): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findTeamByToken(db: Db, token: string): Promise<TeamRow | undefined> {
  return db.selectFrom('teams').selectAll().where('api_token', '=', token).executeTakeFirst();
}

/** The "@current" project of an organization: its first-created one. */
export function findFirstTeamOfOrganization(db: Db, organizationId: string): Promise<TeamRow | undefined> {
  return db
    .selectFrom('teams')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
}
