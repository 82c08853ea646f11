// What a request's access check reads, kept in the process so that the common request waits for
// no lookup: a key (by its digest) with its user, and a project or organization with the user's
// membership there (`@current` ones too). The database announces every change to those rows
// (src/db/changes.ts): an entry is dropped when its user or organization changes, everything when
// a change's rows are unknown; while announcements could be missed (the listening connection is
// down) nothing is kept. An entry also expires after TTL_MS, in case all of that failed.
// Only what exists is kept: an unknown digest, project or organization is looked up every time,
// so random keys cannot fill memory, and each shelf holds at most MAX_ENTRIES (oldest out first).
import { type ChangeListener, type DatabaseChanges } from '../../db/changes.ts';
import type { ApiKeyRow, MembershipRow, OrganizationRow, TeamRow, UserRow } from '../../db/schema.ts';

export const TTL_MS = 5000;
export const MAX_ENTRIES = 10_000;

export interface CachedActor {
  user: UserRow;
  key: ApiKeyRow;
}

export interface CachedTarget {
  organization: OrganizationRow;
  membership: MembershipRow | null;
  project?: TeamRow;
}

interface Entry<T> {
  value: T;
  userId: number;
  organizationId: string | null;
  expiresAt: number;
}

export interface AccessCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** Milliseconds of a monotonic clock (the request clock of tests may stand still or jump). */
  now?: () => number;
}

/** Shallow-frozen copies of the rows: every request shares them, none may change them. */
function frozen<T extends object>(row: T): T {
  const copy = { ...row } as Record<string, unknown>;
  for (const [name, value] of Object.entries(copy)) if (Array.isArray(value)) copy[name] = Object.freeze([...value]);
  return Object.freeze(copy) as T;
}

const frozenTarget = <T extends CachedTarget>(target: T): T =>
  Object.freeze({
    ...target,
    organization: frozen(target.organization),
    membership: target.membership && frozen(target.membership),
    ...(target.project ? { project: frozen(target.project) } : {}),
  });

class Shelf<T> {
  readonly #entries = new Map<string, Entry<T>>();
  readonly #cache: AccessCache;
  constructor(cache: AccessCache) {
    this.#cache = cache;
  }

  get(id: string): T | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt > this.#cache.now()) return entry.value;
    this.#entries.delete(id);
    return undefined;
  }

  put(id: string, entry: Entry<T>) {
    this.#entries.delete(id);
    if (this.#entries.size >= this.#cache.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(id, entry);
  }

  /** Replaces a value still kept, keeping its expiry. */
  replace(id: string, value: T) {
    const entry = this.#entries.get(id);
    if (entry) entry.value = value;
  }

  drop(matches: (entry: Entry<T>) => boolean) {
    for (const [id, entry] of this.#entries) if (matches(entry)) this.#entries.delete(id);
  }

  clear() {
    this.#entries.clear();
  }

  get size() {
    return this.#entries.size;
  }
}

export class AccessCache implements ChangeListener {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly now: () => number;
  readonly #actors = new Shelf<CachedActor>(this);
  readonly #projects = new Shelf<CachedTarget & { project: TeamRow }>(this);
  readonly #organizations = new Shelf<CachedTarget>(this);
  #live = false;
  #changes = 0;
  #unsubscribe: (() => void) | null = null;

  constructor(options: AccessCacheOptions = {}) {
    this.ttlMs = options.ttlMs ?? TTL_MS;
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.now = options.now ?? (() => performance.now());
  }

  /** A cache fed by the database's announcements; it keeps nothing until they flow. */
  static async open(changes: DatabaseChanges, options?: AccessCacheOptions): Promise<AccessCache> {
    const cache = new AccessCache(options);
    cache.#unsubscribe = await changes.subscribe(cache);
    return cache;
  }

  close() {
    this.#unsubscribe?.();
    this.live(false);
  }

  /**
   * Changes announced so far. A lookup notes it before reading the database and keeps its answer
   * only if no change came meanwhile: its rows may predate that change.
   */
  get changes(): number {
    return this.#changes;
  }

  changed(payload: string) {
    this.#changes += 1;
    const [kind, id] = payload.split(':', 2);
    if (kind === 'user') {
      const userId = Number(id);
      const ofUser = (entry: Entry<unknown>) => entry.userId === userId;
      this.#actors.drop(ofUser);
      this.#projects.drop(ofUser);
      this.#organizations.drop(ofUser);
    } else if (kind === 'org') {
      const ofOrganization = (entry: Entry<unknown>) => entry.organizationId === id;
      this.#projects.drop(ofOrganization);
      this.#organizations.drop(ofOrganization);
    } else {
      // EVERYTHING, or a payload this version does not know.
      this.#clear();
    }
  }

  live(on: boolean) {
    this.#live = on;
    this.#changes += 1;
    this.#clear();
  }

  actor(digest: string): CachedActor | undefined {
    return this.#live ? this.#actors.get(digest) : undefined;
  }

  keepActor(digest: string, actor: CachedActor, since: number): CachedActor {
    const kept = Object.freeze({ user: frozen(actor.user), key: frozen(actor.key) });
    if (this.#keeps(since)) this.#actors.put(digest, this.#entry(kept, actor.user.id, null));
    return kept;
  }

  /** The actor with a newer `last_used_at`, which announces nothing (it decides nothing). */
  refreshActor(digest: string, actor: CachedActor): CachedActor {
    const kept = Object.freeze({ user: actor.user, key: frozen(actor.key) });
    this.#actors.replace(digest, kept);
    return kept;
  }

  project(userId: number, ref: string | number): (CachedTarget & { project: TeamRow }) | undefined {
    return this.#live ? this.#projects.get(`${userId}:${ref}`) : undefined;
  }

  keepProject<T extends CachedTarget & { project: TeamRow }>(
    userId: number,
    ref: string | number,
    found: T,
    since: number,
  ): T {
    const kept = frozenTarget(found);
    if (this.#keeps(since)) this.#projects.put(`${userId}:${ref}`, this.#entry(kept, userId, found.organization.id));
    return kept;
  }

  organization(userId: number, ref: string): CachedTarget | undefined {
    return this.#live ? this.#organizations.get(`${userId}:${ref}`) : undefined;
  }

  keepOrganization<T extends CachedTarget>(userId: number, ref: string, found: T, since: number): T {
    const kept = frozenTarget(found);
    if (this.#keeps(since))
      this.#organizations.put(`${userId}:${ref}`, this.#entry(kept, userId, found.organization.id));
    return kept;
  }

  /** Entries kept, by shelf (tests and diagnostics). */
  get sizes() {
    return { actors: this.#actors.size, projects: this.#projects.size, organizations: this.#organizations.size };
  }

  #keeps(since: number): boolean {
    return this.#live && since === this.#changes;
  }

  #entry<T>(value: T, userId: number, organizationId: string | null): Entry<T> {
    return { value, userId, organizationId, expiresAt: this.now() + this.ttlMs };
  }

  #clear() {
    this.#actors.clear();
    this.#projects.clear();
    this.#organizations.clear();
  }
}
