// What changed in the rows access checks read, for the caches that keep them in memory
// (modules/access): the notifications migration 0010 sends on every committed change, from any
// process on the database, and this process's own builder writes to those tables as they run. The
// second is what makes a change visible at once to the next request of the process that made it:
// a notification reaches PostgreSQL's other sessions, this one's listening connection included,
// only some time after the writer's commit returned.
import type { PGlite } from '@electric-sql/pglite';
import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import pg from 'pg';

export const ACCESS_CHANNEL = 'herd_access';
/** The payload meaning "anything may have changed". */
export const EVERYTHING = '*';

export interface ChangeListener {
  /** A payload of migration 0010 (`user:<id>`, `org:<uuid>`), or EVERYTHING. */
  changed(payload: string): void;
  /** Whether every change reaches `changed`: false while the listening connection is down. */
  live(on: boolean): void;
}

export interface DatabaseChanges {
  /** Delivers changes to the listener from the moment LISTEN took effect; resolves to the way to stop. */
  subscribe(listener: ChangeListener): Promise<() => void>;
}

/** How the notifications arrive: a dedicated PostgreSQL connection, or PGlite's own. */
interface Transport {
  start(): Promise<void>;
  close(): Promise<void>;
}

// Writes to these tables that set only these columns change no access outcome (the triggers skip them too).
const WATCHED = new Map<string, readonly string[]>([
  ['users', []],
  ['personal_api_keys', ['last_used_at']],
  ['organization_memberships', []],
  ['teams', ['person_count']],
  ['organizations', []],
]);

/** The table a statement writes, when it is one access checks read. */
function watchedTable(node: OperationNode | undefined): string | undefined {
  if (node?.kind === 'AliasNode') return watchedTable((node as unknown as { node: OperationNode }).node);
  if (node?.kind !== 'TableNode') return undefined;
  const name = (node as unknown as { table: { identifier: { name: string } } }).table.identifier.name;
  return WATCHED.has(name) ? name : undefined;
}

/** Whether a statement writes rows an access check reads. Raw `sql` writes are seen by the triggers only. */
function writesAccessRows(node: RootOperationNode): boolean {
  if (node.kind === 'InsertQueryNode') return watchedTable(node.into) !== undefined;
  if (node.kind === 'DeleteQueryNode') return node.from.froms.some((from) => watchedTable(from) !== undefined);
  if (node.kind !== 'UpdateQueryNode') return false;
  const table = watchedTable(node.table);
  if (table === undefined) return false;
  const ignored = WATCHED.get(table) ?? [];
  const columns = (node.updates ?? []).map(
    (update) => (update.column as unknown as { column?: { name?: string } }).column?.name,
  );
  return columns.length === 0 || columns.some((column) => column === undefined || !ignored.includes(column));
}

export class ChangeFeed implements DatabaseChanges {
  readonly #listeners = new Set<ChangeListener>();
  #transport: Transport | null = null;
  #started: Promise<void> | null = null;
  #live = false;

  /** The Kysely plugin that announces this process's writes (EVERYTHING: their rows are not known here). */
  readonly writeWatch: KyselyPlugin = {
    transformQuery: ({ node }: PluginTransformQueryArgs) => {
      if (this.#listeners.size > 0 && writesAccessRows(node)) this.emit(EVERYTHING);
      return node;
    },
    transformResult: async ({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> => result,
  };

  use(transport: Transport) {
    this.#transport = transport;
  }

  emit(payload: string) {
    for (const listener of this.#listeners) listener.changed(payload);
  }

  setLive(on: boolean) {
    this.#live = on;
    for (const listener of this.#listeners) listener.live(on);
  }

  async subscribe(listener: ChangeListener): Promise<() => void> {
    this.#listeners.add(listener);
    this.#started ??= this.#transport ? this.#transport.start() : Promise.resolve();
    await this.#started;
    listener.live(this.#live);
    return () => this.#listeners.delete(listener);
  }

  async close() {
    this.#listeners.clear();
    await this.#transport?.close();
  }
}

export function listenOnPGlite(feed: ChangeFeed, pglite: PGlite): void {
  let stop: (() => Promise<void>) | null = null;
  feed.use({
    start: async () => {
      // PGlite calls back as it reads the committing statement's answer, before that resolves.
      stop = await pglite.listen(ACCESS_CHANNEL, (payload) => feed.emit(payload || EVERYTHING));
      feed.setLive(true);
    },
    close: async () => {
      await stop?.().catch(() => undefined);
    },
  });
}

const FIRST_RETRY_MS = 100;
const LAST_RETRY_MS = 5000;

/**
 * A connection of its own, outside the pool (a pooled one would be handed to queries and lose
 * its LISTEN), reconnected with backoff. While it is down the feed is not live; once back, it
 * announces EVERYTHING, since what changed meanwhile was announced to nobody.
 */
export function listenOnPostgres(feed: ChangeFeed, config: pg.ClientConfig): void {
  let current: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let delayMs = FIRST_RETRY_MS;

  const retry = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delayMs);
    timer.unref();
    delayMs = Math.min(delayMs * 2, LAST_RETRY_MS);
  };

  const connect = async () => {
    const client = new pg.Client({ ...config, application_name: 'herd access listener' });
    let lost = false;
    const lose = () => {
      if (lost) return;
      lost = true;
      if (current === client) current = null;
      client.end().catch(() => undefined);
      if (closed) return;
      feed.setLive(false);
      retry();
    };
    client.on('error', lose);
    client.on('end', lose);
    client.on('notification', (message) => {
      if (message.channel === ACCESS_CHANNEL) feed.emit(message.payload || EVERYTHING);
    });
    try {
      await client.connect();
      await client.query(`listen ${ACCESS_CHANNEL}`);
    } catch {
      lose();
      return;
    }
    if (lost) return;
    if (closed) {
      lost = true;
      await client.end().catch(() => undefined);
      return;
    }
    current = client;
    delayMs = FIRST_RETRY_MS;
    feed.emit(EVERYTHING);
    feed.setLive(true);
  };

  feed.use({
    start: connect,
    close: async () => {
      closed = true;
      if (timer) clearTimeout(timer);
      const client = current;
      current = null;
      await client?.end().catch(() => undefined);
    },
  });
}
