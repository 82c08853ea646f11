// Slots for heavy requests: at most `perKey` of one key, `perProject` of one project and
// `perProcess` in all run at once. A request over a limit waits in a queue (at most `queueLength`
// of one key, each at most `queueWaitMs`), taken in arrival order whenever a slot frees; past
// either bound it is refused, naming the limit that held it.
import type { HeavyRequestLimits } from '../../config.ts';

export interface HeavyOwner {
  key: string;
  project: string;
}

export type HeavyLimit = 'key' | 'project' | 'process';

export class HeavyRefusal extends Error {
  readonly limit: HeavyLimit;
  readonly max: number;
  constructor(limit: HeavyLimit, max: number) {
    super(`heavy requests over the ${limit} limit of ${max}`);
    this.limit = limit;
    this.max = max;
  }
}

export interface HeavySlot {
  /** Milliseconds spent in the queue (0 when a slot was free). */
  readonly waitedMs: number;
  /** Frees the slot; later calls do nothing. */
  release(): void;
}

interface Waiter {
  owner: HeavyOwner;
  grant(): void;
}

function bump(counts: Map<string, number>, id: string, by: number) {
  const next = (counts.get(id) ?? 0) + by;
  if (next === 0) counts.delete(id);
  else counts.set(id, next);
}

export class HeavySlots {
  readonly #limits: HeavyRequestLimits;
  readonly #byKey = new Map<string, number>();
  readonly #byProject = new Map<string, number>();
  readonly #waitingByKey = new Map<string, number>();
  #running = 0;
  #queue: Waiter[] = [];

  constructor(limits: HeavyRequestLimits) {
    this.#limits = limits;
  }

  /** The limit a new request of `owner` would break now, or null when it may run. */
  #blockedBy(owner: HeavyOwner): HeavyLimit | null {
    if ((this.#byKey.get(owner.key) ?? 0) >= this.#limits.perKey) return 'key';
    if ((this.#byProject.get(owner.project) ?? 0) >= this.#limits.perProject) return 'project';
    if (this.#running >= this.#limits.perProcess) return 'process';
    return null;
  }

  #maxOf(limit: HeavyLimit): number {
    return limit === 'key'
      ? this.#limits.perKey
      : limit === 'project'
        ? this.#limits.perProject
        : this.#limits.perProcess;
  }

  #take(owner: HeavyOwner, since: number | null): HeavySlot {
    bump(this.#byKey, owner.key, 1);
    bump(this.#byProject, owner.project, 1);
    this.#running += 1;
    let released = false;
    return {
      waitedMs: since === null ? 0 : Math.max(1, Date.now() - since),
      release: () => {
        if (released) return;
        released = true;
        bump(this.#byKey, owner.key, -1);
        bump(this.#byProject, owner.project, -1);
        this.#running -= 1;
        this.#drain();
      },
    };
  }

  /** Grants every waiter that fits now, oldest first (a waiter held by its own key does not hold up others). */
  #drain() {
    for (const waiter of [...this.#queue]) {
      if (this.#running >= this.#limits.perProcess) return;
      if (this.#blockedBy(waiter.owner) === null) waiter.grant();
    }
  }

  #leave(waiter: Waiter) {
    this.#queue = this.#queue.filter((other) => other !== waiter);
    bump(this.#waitingByKey, waiter.owner.key, -1);
  }

  /**
   * A slot for `owner`, at once or after queueing; rejects with a HeavyRefusal past the queue's
   * bounds, or with the signal's reason when the caller gives up (the client went away).
   */
  acquire(owner: HeavyOwner, signal?: AbortSignal): Promise<HeavySlot> {
    const since = Date.now();
    const blocked = this.#blockedBy(owner);
    // Granted at once: no wait, even when the clock ticked over meanwhile.
    if (blocked === null) return Promise.resolve(this.#take(owner, null));
    const { queueLength, queueWaitMs } = this.#limits;
    if (queueWaitMs === 0 || (this.#waitingByKey.get(owner.key) ?? 0) >= queueLength) {
      return Promise.reject(new HeavyRefusal(blocked, this.#maxOf(blocked)));
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<HeavySlot>((resolve, reject) => {
      const waiter: Waiter = {
        owner,
        grant: () => {
          finish();
          resolve(this.#take(owner, since));
        },
      };
      const timer = setTimeout(() => {
        finish();
        const limit = this.#blockedBy(owner) ?? blocked;
        reject(new HeavyRefusal(limit, this.#maxOf(limit)));
      }, queueWaitMs);
      const abort = () => {
        finish();
        reject(signal?.reason);
      };
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.#leave(waiter);
      };
      signal?.addEventListener('abort', abort, { once: true });
      this.#queue.push(waiter);
      bump(this.#waitingByKey, owner.key, 1);
    });
  }

  /** Requests running and waiting now (for tests and metrics). */
  get stats(): { running: number; waiting: number } {
    return { running: this.#running, waiting: this.#queue.length };
  }
}
