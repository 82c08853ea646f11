// A key's request budgets counted across every process on the database. A process claims hits
// from the window's row in blocks (one upsert per block, `limit_windows`) and spends them in memory,
// so a request costs a map lookup; the database never grants more than the budget, so all processes
// together allow at most `max` a window. A block is a sixteenth of what the window has left (at
// most 64), so near the end each claims one at a time and little stays unspent in another process.
// Windows are fixed (aligned to the epoch) so that every process names the same one.
// When the database does not answer, the process counts alone (as with LIMITS_STORE=process) and
// logs it: a limit is never the reason for a 500.
import type { Logger } from 'pino';
import type { Db } from '../../db/database.ts';
import { claimHits } from './limits.repository.ts';

export interface BudgetVerdict {
  allowed: boolean;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

interface WindowState {
  start: number;
  end: number;
  /** Hits claimed from the database and not yet spent here. */
  tokens: number;
  /** Requests this process allowed in the window. */
  spent: number;
  /** The window's hits in the database, as the last claim saw them. */
  known: number;
  /** The database has nothing left to grant in this window. */
  full: boolean;
  /** Tokens left at which the next block is claimed ahead (half the last block). */
  lowWater: number;
  claiming: Promise<void> | null;
}

export interface SharedBudgetOptions {
  /** A claim slower than this is given up (the request goes on, counted here alone). */
  claimTimeoutMs?: number;
  /** After a failed claim, how long the process counts alone before it asks the database again. */
  retryAfterMs?: number;
  largestBlock?: number;
}

const WARN_EVERY_MS = 10_000;

export class SharedBudgets {
  readonly #db: Db;
  readonly #log: Logger;
  readonly #windows = new Map<string, WindowState>();
  readonly #claimTimeoutMs: number;
  readonly #retryAfterMs: number;
  readonly #largestBlock: number;
  #downUntil = 0;
  #warnedAt = 0;

  constructor(db: Db, log: Logger, options: SharedBudgetOptions = {}) {
    this.#db = db;
    this.#log = log;
    this.#claimTimeoutMs = options.claimTimeoutMs ?? 1000;
    this.#retryAfterMs = options.retryAfterMs ?? 1000;
    this.#largestBlock = options.largestBlock ?? 64;
  }

  /** Counts one request of `subject` against `budget` (`max` a window of `windowMs`); synchronous while the process holds hits. */
  take(subject: string, budget: string, windowMs: number, max: number): BudgetVerdict | Promise<BudgetVerdict> {
    const now = Date.now();
    const start = now - (now % windowMs);
    const resetMs = start + windowMs - now;
    const id = `${budget}\n${subject}`;
    let state = this.#windows.get(id);
    if (!state || state.start !== start) {
      state = { start, end: start + windowMs, tokens: 0, spent: 0, known: 0, full: false, lowWater: 0, claiming: null };
      this.#windows.set(id, state);
    }
    if (state.tokens > 0) {
      state.tokens -= 1;
      state.spent += 1;
      // The next block is claimed while half of this one is left, so a busy key's requests do not
      // all wait on the claim (behind the pool's queue) when the last hit is spent.
      if (state.tokens <= state.lowWater && !state.full) this.#claimOnce(state, subject, budget, windowMs, max);
      return { allowed: true, resetMs };
    }
    if (state.full) return { allowed: false, resetMs };
    const claiming = this.#claimOnce(state, subject, budget, windowMs, max);
    return claiming.then(() => this.take(subject, budget, windowMs, max));
  }

  #claimOnce(state: WindowState, subject: string, budget: string, windowMs: number, max: number): Promise<void> {
    state.claiming ??= this.#claim(state, subject, budget, windowMs, max).finally(() => (state.claiming = null));
    return state.claiming;
  }

  async #claim(state: WindowState, subject: string, budget: string, windowMs: number, max: number) {
    const size = Math.max(1, Math.min(this.#largestBlock, Math.floor((max - state.known) / 16)));
    state.lowWater = Math.floor(size / 2);
    if (Date.now() < this.#downUntil) return this.#countAlone(state, size, max);
    let timer: NodeJS.Timeout | undefined;
    try {
      const claim = claimHits(this.#db, {
        subject,
        budget,
        windowStart: new Date(state.start),
        // Kept a window longer, so a process whose clock is a little behind still finds it.
        expiresAt: new Date(state.start + 2 * windowMs),
        size,
        max,
      });
      const late = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer in ${this.#claimTimeoutMs} ms`)), this.#claimTimeoutMs);
      });
      claim.catch(() => undefined);
      const hits = await Promise.race([claim, late]);
      if (hits === null) {
        state.full = true;
        state.known = max;
        return;
      }
      state.tokens += Math.max(0, Math.min(size, max - (hits - size)));
      state.known = hits;
      if (hits >= max) state.full = true;
    } catch (error) {
      this.#downUntil = Date.now() + this.#retryAfterMs;
      if (Date.now() - this.#warnedAt > WARN_EVERY_MS) {
        this.#warnedAt = Date.now();
        this.#log.warn(
          { err: error, subject, budget },
          'shared rate limit unavailable; counting in this process alone',
        );
      }
      this.#countAlone(state, size, max);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Fail open: the process grants from its own count, at most `max` a window (as one process alone would). */
  #countAlone(state: WindowState, size: number, max: number) {
    const left = max - state.spent - state.tokens;
    if (left > 0) state.tokens += Math.min(size, left);
    else state.full = true;
  }

  /** Forgets windows that have ended (what keeps the map as small as the keys of the current windows). */
  forgetEnded() {
    const now = Date.now();
    for (const [id, state] of this.#windows) if (state.end <= now && !state.claiming) this.#windows.delete(id);
  }
}
