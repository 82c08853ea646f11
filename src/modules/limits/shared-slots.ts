// Heavy-request slots held across every process on the database: a slot is a row of
// `heavy_slot_leases` (one of `max` numbered slots of a key or a project) that this process leases
// for the request's length and renews while it runs; a process that dies leaves rows that lapse
// after the lease time, never a slot held forever. A request that finds every slot taken polls
// until its wait is over (no queue spans processes: among them the first to poll after a release
// gets the slot). When the database does not answer, the request runs without a lease (logged):
// the process's own slots still bound it.
import crypto from 'node:crypto';
import os from 'node:os';
import type { Logger } from 'pino';
import type { Db } from '../../db/database.ts';
import { releaseLease, renewLease, takeLease } from './limits.repository.ts';

export interface SlotOwner {
  key: string;
  project: string;
}

export interface SlotMaxima {
  perKey: number;
  perProject: number;
}

export type SlotOutcome = { release(): void } | { blocked: 'key' | 'project' };

interface Lease {
  subject: string;
  slot: number;
}

const POLL_MS = { first: 25, most: 200 };
const WARN_EVERY_MS = 10_000;

export class SharedSlots {
  /** Names this process's leases: host, pid and a random part (a pid is reused after a restart). */
  readonly holder = `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
  readonly #db: Db;
  readonly #log: Logger;
  readonly #ttlMs: number;
  readonly #renewal: NodeJS.Timeout;
  readonly #held = new Set<Lease>();
  #warnedAt = 0;

  constructor(db: Db, log: Logger, ttlMs: number) {
    this.#db = db;
    this.#log = log;
    this.#ttlMs = ttlMs;
    this.#renewal = setInterval(() => this.#renew(), Math.max(100, Math.floor(ttlMs / 3)));
    this.#renewal.unref();
  }

  #warn(error: unknown, message: string) {
    if (Date.now() - this.#warnedAt < WARN_EVERY_MS) return;
    this.#warnedAt = Date.now();
    this.#log.warn({ err: error }, message);
  }

  #renew() {
    // One statement per lease, each routed to its subject's shard on Citus.
    for (const lease of this.#held) {
      renewLease(this.#db, { ...lease, holder: this.holder }, this.#ttlMs).catch((error: unknown) =>
        this.#warn(error, 'heavy-slot lease not renewed'),
      );
    }
  }

  async #take(subject: string, max: number): Promise<Lease | null> {
    for (let slot = 0; slot < max; slot++) {
      if (await takeLease(this.#db, { subject, slot, holder: this.holder, ttlMs: this.#ttlMs })) {
        const lease = { subject, slot };
        this.#held.add(lease);
        return lease;
      }
    }
    return null;
  }

  #release(lease: Lease): Promise<void> {
    this.#held.delete(lease);
    return releaseLease(this.#db, { ...lease, holder: this.holder }).catch((error: unknown) =>
      this.#warn(error, 'heavy-slot lease not released; it lapses by itself'),
    );
  }

  /** One attempt at a key slot and a project slot together; both or neither. */
  async #attempt(owner: SlotOwner, maxima: SlotMaxima): Promise<SlotOutcome> {
    const key = await this.#take(`key:${owner.key}`, maxima.perKey);
    if (!key) return { blocked: 'key' };
    let project: Lease | null;
    try {
      project = await this.#take(`project:${owner.project}`, maxima.perProject);
    } catch (error) {
      this.#release(key);
      throw error;
    }
    if (!project) {
      this.#release(key);
      return { blocked: 'project' };
    }
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#release(key);
        this.#release(project);
      },
    };
  }

  /**
   * Slots of the owner's key and project, polling for up to `waitMs` while others hold them; the
   * limit that held it when the wait is over, or the signal's reason when the caller gives up.
   */
  async acquire(owner: SlotOwner, maxima: SlotMaxima, waitMs: number, signal?: AbortSignal): Promise<SlotOutcome> {
    const deadline = Date.now() + waitMs;
    let pause = POLL_MS.first;
    for (;;) {
      let outcome: SlotOutcome;
      try {
        outcome = await this.#attempt(owner, maxima);
      } catch (error) {
        this.#warn(error, 'shared heavy-request slots unavailable; running on this process slots alone');
        return { release: () => undefined };
      }
      if ('release' in outcome) return outcome;
      if (signal?.aborted) throw signal.reason;
      const left = deadline - Date.now();
      if (left <= 0) return outcome;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
      if (signal?.aborted) throw signal.reason;
      pause = Math.min(POLL_MS.most, pause * 2);
    }
  }

  /** Stops renewing and gives back whatever this process still holds. */
  async close(): Promise<void> {
    clearInterval(this.#renewal);
    await Promise.all([...this.#held].map((lease) => this.#release(lease)));
  }
}
