// Keeping the definitions current at a cost capture does not see. A committed batch only adds
// what it shows (definitions-seen.ts) to its process's buffer, leaving out what the process wrote
// within the hour: a few map lookups per batch. The buffer is written a second later, or before
// any definitions request of the process reads them, for all batches at once: per project at most
// one upsert statement per table, its rows sorted (two writers lock shared rows in the same order),
// outside every capture transaction. `last_seen_at` is kept in whole hours, so a name's row changes
// at most once an hour. A closing server writes the buffer (definitions.routes.ts); a crash loses
// at most a second of it: capture adds those names again the next time it sees them. Inside a
// caller's transaction (the persons API's updates) the definitions are written with it instead.
import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import type { Deps } from '../deps.ts';
import { entriesOf, partsOf, type SeenDefinitions } from './definitions-seen.ts';
import { rowsOf } from './write-sql.ts';

/** The unit of `last_seen_at`, and how long a process trusts what it wrote. */
export const SEEN_GRANULARITY_MS = 60 * 60 * 1000;
/** How long a buffered entry waits at most before it is written. */
export const FLUSH_DELAY_MS = 1000;
// Bounded: past this many entries a process forgets them all, and writes them again once.
const MEMORY_CAP = 100_000;

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Writes the entries of one project, each seen at its time (ms); answers nothing, throws on failure. */
export async function writeEntries(db: Db, teamId: number, entries: Map<string, number>): Promise<void> {
  const events: { name: string; created_at: Date; last_seen_at: Date }[] = [];
  const properties = new Map<string, { kind: number; name: string; property_type: string | null }>();
  const pairs: { event: string; property: string }[] = [];
  for (const entry of [...entries.keys()].sort(byText)) {
    const { kind, fields } = partsOf(entry);
    const at = entries.get(entry) as number;
    if (kind === 'e') {
      // Whole hours: a row changes once an hour at most (and Citus wants the upsert's condition
      // immutable, so no interval arithmetic in SQL).
      events.push({
        name: fields[0],
        created_at: new Date(at),
        last_seen_at: new Date(at - (at % SEEN_GRANULARITY_MS)),
      });
    } else if (kind === 'p') {
      const [propertyKind, type, name] = fields;
      const id = `${propertyKind}:${name}`;
      // One row per key: a key seen with two types keeps its first typed one.
      if (!properties.get(id)?.property_type)
        properties.set(id, { kind: Number(propertyKind), name, property_type: type || null });
    } else {
      pairs.push({ event: fields[0], property: fields[1] });
    }
  }
  if (events.length > 0) {
    await sql`insert into event_definitions (team_id, name, created_at, last_seen_at)
      select ${teamId}::integer, v.name, v.created_at, v.last_seen_at
      from ${rowsOf(events)} as v (name text, created_at timestamptz, last_seen_at timestamptz)
      on conflict (team_id, name) do update set last_seen_at = excluded.last_seen_at
        where event_definitions.last_seen_at < excluded.last_seen_at`.execute(db);
  }
  if (properties.size > 0) {
    const rows = [...properties.values()].sort((a, b) => a.kind - b.kind || byText(a.name, b.name));
    await sql`insert into property_definitions (team_id, kind, name, property_type)
      select ${teamId}::integer, v.kind, v.name, v.property_type
      from ${rowsOf(rows)} as v (kind smallint, name text, property_type text)
      on conflict (team_id, kind, name) do update set property_type = excluded.property_type
        where property_definitions.property_type is null and excluded.property_type is not null`.execute(db);
  }
  if (pairs.length > 0) {
    await sql`insert into event_properties (team_id, event, property)
      select ${teamId}::integer, v.event, v.property from ${rowsOf(pairs)} as v (event text, property text)
      on conflict do nothing`.execute(db);
  }
}

/** One process's definitions for one database: what it wrote lately, and what waits to be written. */
export class DefinitionsBuffer {
  private readonly written = new Map<string, number>();
  private pending = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly deps: Pick<Deps, 'db' | 'log'>;

  constructor(deps: Pick<Deps, 'db' | 'log'>) {
    this.deps = deps;
  }

  /** The entries not written within the granularity. */
  fresh(entries: string[], at: number): string[] {
    return entries.filter((entry) => {
      const when = this.written.get(entry);
      return when === undefined || at - when >= SEEN_GRANULARITY_MS || at < when;
    });
  }

  remember(entries: Iterable<[string, number]>): void {
    for (const [entry, at] of entries) {
      if (this.written.size >= MEMORY_CAP) this.written.clear();
      this.written.set(entry, at);
    }
  }

  add(seen: SeenDefinitions, teamId: number, at: number): void {
    for (const entry of this.fresh(entriesOf(teamId, seen), at)) {
      if ((this.pending.get(entry) ?? -Infinity) < at) this.pending.set(entry, at);
    }
    if (this.pending.size > 0 && this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      // A buffer never keeps a process alive (a crash or exit loses at most this second).
      this.timer.unref();
    }
  }

  /** Writes what waits, one project at a time; a project that fails is logged and left out. */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.flushing.then(() => this.write(batch));
    return this.flushing;
  }

  private async write(batch: Map<string, number>): Promise<void> {
    const byTeam = new Map<number, Map<string, number>>();
    for (const [entry, at] of batch) {
      const { teamId } = partsOf(entry);
      if (!byTeam.has(teamId)) byTeam.set(teamId, new Map());
      byTeam.get(teamId)?.set(entry, at);
    }
    for (const [teamId, entries] of byTeam) {
      try {
        // One transaction: one commit (one wait for the disk) for the three statements.
        await this.deps.db.transaction().execute((trx) => writeEntries(trx, teamId, entries));
        this.remember(entries);
      } catch (error) {
        // Derived data: capture adds these again when it next sees them (a project deleted meanwhile is one cause).
        this.deps.log.warn({ err: error, teamId }, 'definitions not recorded');
      }
    }
  }
}

const buffers = new WeakMap<Db, DefinitionsBuffer>();

/** The buffer of the process for this database handle (tests open many databases in one process). */
export function definitionsBufferOf(deps: Pick<Deps, 'db' | 'log'>): DefinitionsBuffer {
  let buffer = buffers.get(deps.db);
  if (!buffer) buffers.set(deps.db, (buffer = new DefinitionsBuffer(deps)));
  return buffer;
}

/**
 * What a batch shows, once it is stored: in `db` when it is a caller's transaction (written with
 * it), else buffered (`db` is then committed).
 */
export async function recordBatchDefinitions(
  deps: Deps,
  db: Db,
  teamId: number,
  seen: SeenDefinitions | null,
): Promise<void> {
  if (!seen) return;
  const at = deps.clock.now().getTime();
  const buffer = definitionsBufferOf(deps);
  if (!db.isTransaction) return buffer.add(seen, teamId, at);
  const entries = buffer.fresh(entriesOf(teamId, seen), at);
  await writeEntries(db, teamId, new Map(entries.map((entry) => [entry, at])));
}

/** What this process buffered for `db`, written now (nothing when it buffered nothing). */
export function flushBufferedDefinitions(db: Db): Promise<void> {
  return buffers.get(db)?.flush() ?? Promise.resolve();
}

/** Before a read of the definitions: what this process buffered is written. */
export function flushDefinitions(deps: Deps): Promise<void> {
  return definitionsBufferOf(deps).flush();
}
