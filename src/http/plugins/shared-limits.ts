// With LIMITS_STORE=database, the per-key budgets and the heavy-request slots are counted in the
// database every process shares (modules/limits); this opens both for one app, sweeps expired rows
// once a minute, and adapts the budgets to @fastify/rate-limit's store interface.
import type { FastifyInstance } from 'fastify';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Deps } from '../../deps.ts';
import { deleteExpired } from '../../modules/limits/limits.repository.ts';
import { SharedBudgets } from '../../modules/limits/shared-budgets.ts';
import { SharedSlots } from '../../modules/limits/shared-slots.ts';

export interface SharedLimits {
  budgets: SharedBudgets;
  slots: SharedSlots;
}

const SWEEP_MS = 60_000;

export function openSharedLimits(app: FastifyInstance, deps: Deps): SharedLimits | null {
  if (deps.config.limitsStore !== 'database') return null;
  const log = deps.log.child({ module: 'shared-limits' });
  const budgets = new SharedBudgets(deps.db, log);
  const slots = new SharedSlots(deps.db, log, deps.config.heavySlotLeaseMs);
  const sweep = setInterval(() => {
    budgets.forgetEnded();
    deleteExpired(deps.db).then(
      (deleted) => log.debug(deleted, 'expired limit rows deleted'),
      (error: unknown) => log.warn({ err: error }, 'expired limit rows not deleted'),
    );
  }, SWEEP_MS);
  sweep.unref();
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    await slots.close();
  });
  return { budgets, slots };
}

type Counted = Parameters<FastifyRateLimitStore['incr']>[1];
const budgetOf = (options: object) => (options as { budget?: string }).budget ?? 'default';

/** A @fastify/rate-limit store over the shared budgets; each limiter names its budget (`budget` in its options). */
export function sharedRateLimitStore(budgets: SharedBudgets): FastifyRateLimitStoreCtor {
  return class SharedRateLimitStore implements FastifyRateLimitStore {
    readonly budget: string;
    constructor(options: object) {
      this.budget = budgetOf(options);
    }
    child(options: object) {
      return new SharedRateLimitStore(options);
    }
    incr(key: string, counted: Counted, timeWindow: number, max: number) {
      const answer = (verdict: { allowed: boolean; resetMs: number }) =>
        counted(null, { current: verdict.allowed ? 1 : max + 1, ttl: verdict.resetMs });
      const verdict = budgets.take(String(key), this.budget, timeWindow, max);
      if (verdict instanceof Promise) verdict.then(answer, counted);
      else answer(verdict);
    }
  };
}
