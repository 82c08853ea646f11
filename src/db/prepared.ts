// Named (prepared) statements for the hot point reads on PostgreSQL: a statement marked here is
// parsed once per pooled connection and, once PostgreSQL settles on a generic plan, not planned
// again, where an unnamed one is parsed and planned on every run (about half of a point read's
// time in the database). Only statements whose text is fixed by the code and whose columns are
// named (never `*`: a column added by a later migration would change a cached plan's result)
// should be marked; past MAX_PREPARED texts the rest run unnamed, so nothing grows without bound.
// PGlite runs in the process and ignores the mark.
import type { CompiledQuery, QueryResult } from 'kysely';
import pg from 'pg';

const MAX_PREPARED = 64;
const names = new Map<string, string>();

/** The statement, to run as a named statement on PostgreSQL (`db.executeQuery(prepared(…))`). */
export function prepared<R>(query: CompiledQuery<R>): CompiledQuery<R> {
  if (!names.has(query.sql) && names.size < MAX_PREPARED) names.set(query.sql, `herd_${names.size + 1}`);
  return query;
}

/** Runs a compiled query as a named statement (a `sql` template or builder compiled with `db`). */
export async function runPrepared<R>(
  db: { executeQuery<O>(query: CompiledQuery<O>): Promise<QueryResult<O>> },
  query: CompiledQuery<R>,
): Promise<R[]> {
  return (await db.executeQuery(prepared(query))).rows;
}

/** The pool's client: a marked text runs under its name (how `pg` prepares a statement once per connection). */
export class PreparingClient extends pg.Client {}

const unnamed = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;
PreparingClient.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  const [text, values] = args;
  const name = args.length <= 2 && typeof text === 'string' ? names.get(text) : undefined;
  if (name !== undefined && (values === undefined || Array.isArray(values)))
    return unnamed.call(this, { name, text, values });
  return unnamed.apply(this, args);
} as typeof pg.Client.prototype.query;
