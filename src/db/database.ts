// Opens the database the config names: PGlite under DATA_DIR by default, PostgreSQL with DATABASE_URL.
import fs from 'node:fs';
import type { Extension, PGlite, PGliteOptions } from '@electric-sql/pglite';
import type { NodeFS } from '@electric-sql/pglite/nodefs';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { ChangeFeed, listenOnPGlite, listenOnPostgres } from './changes.ts';
import type { DatabaseHandle, Db } from './handle.ts';
import { lockDataDir } from './data-dir-lock.ts';
import { migrateToLatest } from './migrate.ts';
import { migrations } from './migrations/index.ts';
import { copyImage, imageDirectory, isFreshDataDir, preparedImage } from './pglite-image.ts';
import { PGliteDialect } from './pglite-dialect.ts';
import { PreparingClient } from './prepared.ts';
import { applyQueryBudget } from './query-budget.ts';
import type { Database } from './schema.ts';

// The handle's types live in handle.ts (migrate.ts and citus.ts need them without this file).
export type { DatabaseHandle, Db } from './handle.ts';

const INT8_OID = 20;
const NUMERIC_OID = 1700;
const TIMESTAMPTZ_OID = 1184;

// int8 (ids, counts) as JavaScript numbers: herd's ids stay far below 2^53.
const parseInt8 = (value: string) => Number(value);
// PGlite reads timestamptz with pg's parser too, so both databases give the same Date for every
// value: its own parser turns years 1–99 into 19xx, which a later update would write back.
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text');

/** `onConnect` sees each new connection of the pool first (the Citus test run checks routing there). */
export async function openPostgres(
  connection: string | pg.PoolConfig,
  poolSize: number,
  options: { onConnect?: (client: pg.PoolClient) => void } = {},
): Promise<DatabaseHandle> {
  const config = typeof connection === 'string' ? { connectionString: connection } : connection;
  const pool = new pg.Pool({
    ...config,
    // No JIT: the analytical views' estimates (windows, per-person self-joins) pass the costs at
    // which PostgreSQL inlines and optimizes with LLVM, which took ~1.2 s of a retention insight's
    // statement that ran in ~1 s; compiled expressions gain herd's statements little. (An `options`
    // in the URL replaces this one, as pg reads the URL last.)
    options: [config.options, '-c jit=off'].filter(Boolean).join(' '),
    Client: PreparingClient,
    max: poolSize,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID || oid === NUMERIC_OID
          ? parseInt8
          : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  if (options.onConnect) pool.on('connect', options.onConnect);
  // An idle connection the server ended (a restart, a failover, an administrator) is dropped by the
  // pool, which opens another when one is needed; unheard, the error would end the process.
  pool.on('error', () => undefined);
  const changes = new ChangeFeed();
  listenOnPostgres(changes, config);
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool, onReserveConnection: applyQueryBudget }),
    plugins: [changes.writeWatch],
  });
  const close = async () => {
    await changes.close();
    await db.destroy();
  };
  return { db, kind: 'postgres', changes, close };
}

type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
// Node's WebAssembly global, which @types/node does not declare.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };
};

/** What opening an embedded database needs of PGlite: its code and its WebAssembly, compiled. */
interface PGliteRuntime {
  PGlite: typeof PGlite;
  pg_trgm: Extension;
  NodeFS: typeof NodeFS;
  wasmModule: WasmModule;
}

let runtime: Promise<PGliteRuntime> | null = null;

/**
 * PGlite's code, loaded on first need (a server on PostgreSQL never needs it), and its 9 MB of
 * WebAssembly read and compiled by this process once, off the main thread, while the image is
 * copied (PGlite would read and compile it only once asked to open a database).
 */
function loadPGliteRuntime(): Promise<PGliteRuntime> {
  runtime ??= (async () => {
    const entry = import.meta.resolve('@electric-sql/pglite');
    const [{ PGlite }, { pg_trgm }, { NodeFS }, wasmModule] = await Promise.all([
      import('@electric-sql/pglite'),
      import('@electric-sql/pglite/contrib/pg_trgm'),
      import('@electric-sql/pglite/nodefs'),
      // The file PGlite itself loads, beside its entry module.
      fs.promises.readFile(new URL('./pglite.wasm', entry)).then((bytes) => wasm.compile(bytes)),
    ]);
    return { PGlite, pg_trgm, NodeFS, wasmModule };
  })();
  return runtime;
}

/**
 * PGlite's own filesystem on a DATA_DIR the image is still being copied into. PGlite awaits a
 * filesystem's initial sync before it looks for a database in it; this one's is the copy, so
 * PGlite's runtime starts up (its WebAssembly instance, its bundled files) while the copy ends.
 */
function copyingFilesystem(Base: typeof NodeFS, dataDir: string, copied: Promise<void>): NodeFS {
  return new (class extends Base {
    override async initialSyncFs() {
      await copied;
      await super.initialSyncFs();
    }
  })(dataDir);
}

/**
 * dataDir null: in memory. loadDataDir: a dump of a migrated database to start from (tests).
 * fromImage: the prepared image's directory (pglite-image.ts), which a fresh dataDir starts as a copy of.
 * A directory is locked for this process before PGlite touches it (DataDirLockedError if taken).
 */
export async function openPGlite(options: {
  dataDir: string | null;
  loadDataDir?: Blob;
  fromImage?: string;
}): Promise<DatabaseHandle> {
  const lock = options.dataDir ? lockDataDir(options.dataDir) : null;
  let pglite: PGlite;
  let fromImage: string[] | undefined;
  try {
    const loading = loadPGliteRuntime();
    let copying: Promise<void> | null = null;
    if (options.dataDir && options.fromImage && isFreshDataDir(options.dataDir)) {
      const image = await preparedImage(buildImage, options.fromImage);
      if (image) {
        copying = copyImage(image, options.dataDir);
        // Awaited by PGlite or below: failing meanwhile is not an unhandled rejection.
        copying.catch(() => undefined);
        // The image is named by the migrations' text and built by this very list.
        fromImage = Object.keys(migrations);
      }
    }
    try {
      const { PGlite, pg_trgm, NodeFS, wasmModule } = await loading;
      pglite = await PGlite.create({
        dataDir: options.dataDir ?? undefined,
        fs: copying && options.dataDir ? copyingFilesystem(NodeFS, options.dataDir, copying) : undefined,
        loadDataDir: options.loadDataDir,
        pgliteWasmModule: wasmModule,
        // Trigram indexes serve the persons search (migration 0004).
        extensions: { pg_trgm },
        parsers: { [INT8_OID]: parseInt8, [NUMERIC_OID]: parseInt8, [TIMESTAMPTZ_OID]: parseTimestamptz },
      });
    } finally {
      // Whatever failed, no copy goes on writing into a directory whose lock is released.
      await copying?.catch(() => undefined);
    }
  } catch (error) {
    lock?.release();
    throw error;
  }
  const changes = new ChangeFeed();
  listenOnPGlite(changes, pglite);
  const db = new Kysely<Database>({ dialect: new PGliteDialect(pglite), plugins: [changes.writeWatch] });
  const close = async () => {
    try {
      await changes.close();
      await db.destroy();
    } finally {
      lock?.release();
    }
  };
  return { db, kind: 'pglite', changes, fromImage, close };
}

/** A migrated image in `dataDir`: opened fresh (initdb), migrated, closed cleanly. */
async function buildImage(dataDir: string): Promise<void> {
  const handle = await openPGlite({ dataDir });
  try {
    await migrateToLatest(handle.db);
  } finally {
    await handle.close();
  }
}

/** Builds the prepared image now if it is missing (`npm ci` runs this); its directory, or null. */
export const prepareEmbeddedImage = (): Promise<string | null> => preparedImage(buildImage, imageDirectory());

export function openDatabase(config: Config): Promise<DatabaseHandle> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, config.databasePoolSize)
    : openPGlite({ dataDir: config.dataDir, fromImage: imageDirectory() });
}

/** Runs a trivial statement: throws when the database cannot answer. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
