// The time limit of the statements a request runs. The HTTP layer opens a budget per request
// (`withQueryBudget`, an AsyncLocalStorage scope that follows the request's promises); every
// pooled PostgreSQL connection the request reserves gets that `statement_timeout`, so PostgreSQL
// itself cancels a statement over it (nothing is left running once the client has its error).
// Work outside a request (migrations, the deletion batch, the CLI) has no budget and runs under
// the server's own default.
import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type DatabaseConnection } from 'kysely';

export interface QueryBudget {
  /** Each statement's limit in ms; 0 means none. The HTTP layer may change it once the route is known. */
  statementTimeoutMs: number;
}

const budgets = new AsyncLocalStorage<QueryBudget>();

/** Runs `work` (and everything it starts) under `budget`. */
export function withQueryBudget<T>(budget: QueryBudget, work: () => T): T {
  return budgets.run(budget, work);
}

export function currentQueryBudget(): QueryBudget | undefined {
  return budgets.getStore();
}

/** What a connection's `statement_timeout` is now; absent: the server's default (never set by us). */
const applied = new WeakMap<DatabaseConnection, number>();

/**
 * Kysely's `onReserveConnection` for PostgreSQL: sets the connection's `statement_timeout` to the
 * current budget, or back to the server's default outside a request. A connection already at the
 * right value costs nothing; a change costs one round trip (light and heavy requests share the pool).
 */
export async function applyQueryBudget(connection: DatabaseConnection): Promise<void> {
  const wanted = budgets.getStore()?.statementTimeoutMs;
  const current = applied.get(connection);
  if (wanted === current) return;
  if (wanted === undefined) {
    await connection.executeQuery(CompiledQuery.raw('reset statement_timeout'));
    applied.delete(connection);
  } else {
    await connection.executeQuery(
      CompiledQuery.raw("select set_config('statement_timeout', $1, false)", [String(wanted)]),
    );
    applied.set(connection, wanted);
  }
}

/** SQLSTATE 57014 (query_canceled): what PostgreSQL raises when a statement runs past `statement_timeout`. */
export function isQueryCanceled(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '57014';
}
