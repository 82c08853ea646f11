// Who created rows (roles, cohorts): their users loaded in one query, as the API shows them.
import type { Db } from '../../db/database.ts';
import { serializeUser, type UserBasicWire } from '../../wire/serializers.ts';
import { findUsersByIds } from './users.repository.ts';

interface Created {
  created_by_id: number | null;
}

/** A function from each of the rows to its creator (null when none is recorded or left). */
export async function loadCreators(db: Db, rows: Created[]): Promise<(row: Created) => UserBasicWire | null> {
  const ids = [...new Set(rows.flatMap((row) => (row.created_by_id === null ? [] : [row.created_by_id])))];
  const byId = new Map((await findUsersByIds(db, ids)).map((user) => [user.id, serializeUser(user)]));
  return (row) => (row.created_by_id === null ? null : (byId.get(row.created_by_id) ?? null));
}
