// A Kysely dialect over one embedded PGlite instance. PGlite has a single connection, so the
// driver hands it out to one holder at a time (a transaction keeps it until commit or rollback).
import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

class PGliteConnection implements DatabaseConnection {
  readonly #pg: PGlite;
  constructor(pg: PGlite) {
    this.#pg = pg;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const result = await this.#pg.query<R>(compiled.sql, compiled.parameters as unknown[]);
    const affected = result.affectedRows;
    return {
      rows: result.rows,
      numAffectedRows: affected === undefined ? undefined : BigInt(affected),
    };
  }

  async *streamQuery<R>(compiled: CompiledQuery, chunkSize = 1000): AsyncIterableIterator<QueryResult<R>> {
    // PGlite has no cursors over its wire: page through the result in memory-bounded chunks.
    const result = await this.#pg.query<R>(compiled.sql, compiled.parameters as unknown[]);
    for (let i = 0; i < result.rows.length; i += chunkSize) {
      yield { rows: result.rows.slice(i, i + chunkSize) };
    }
  }
}

class PGliteDriver implements Driver {
  readonly #pg: PGlite;
  readonly #connection: PGliteConnection;
  #queue: Promise<void> = Promise.resolve();
  #release: (() => void) | null = null;

  constructor(pg: PGlite) {
    this.#pg = pg;
    this.#connection = new PGliteConnection(pg);
  }

  async init(): Promise<void> {
    await this.#pg.waitReady;
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#queue;
    let release!: () => void;
    this.#queue = new Promise<void>((resolve) => {
      release = resolve;
    });
    await previous;
    this.#release = release;
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await connection.executeQuery(CompiledQuery.raw(`begin${isolation}`));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  async destroy(): Promise<void> {
    await this.#queue;
    if (!this.#pg.closed) await this.#pg.close();
  }
}

export class PGliteDialect implements Dialect {
  readonly #pg: PGlite;
  constructor(pg: PGlite) {
    this.#pg = pg;
  }
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver(): Driver {
    return new PGliteDriver(this.#pg);
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
}
