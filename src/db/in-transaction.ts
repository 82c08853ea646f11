// Runs work in a transaction, joining the caller's when there is one (Kysely does not nest them),
// so a service can be used on its own or as one step of a larger unit (bootstrap).
import type { Db } from './database.ts';

export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}
