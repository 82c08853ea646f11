// Runs the deletion batch on DELETION_SCHEDULE (a cron expression, read in UTC; default Sundays
// 05:00). croner computes the next run; the timer and clock are injected so tests drive time.
import { Cron } from 'croner';
import type { Clock, Deps } from '../deps.ts';
import { runDeletionBatch, type DeletionBatchOptions, type DeletionBatchResult } from './deletion-batch.ts';

export interface Timer {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimer: Timer = {
  setTimeout: (callback, ms) => setTimeout(callback, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface DeletionScheduler {
  /** When the batch runs next; null when the schedule is off or has no future run. */
  nextRunAt(): Date | null;
  stop(): Promise<void>;
}

export interface DeletionSchedulerOptions {
  timer?: Timer;
  runBatch?: (deps: Deps, options: DeletionBatchOptions) => Promise<DeletionBatchResult>;
}

// setTimeout holds at most 2^31-1 ms (~24.8 days); a longer wait re-arms on waking.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Throws when the expression is not a cron expression croner accepts. */
export function parseDeletionSchedule(expression: string): Cron {
  return new Cron(expression, { timezone: 'UTC', paused: true });
}

/** The first run strictly after `after`. */
export function nextDeletionRun(expression: string, after: Date): Date | null {
  return parseDeletionSchedule(expression).nextRun(after);
}

export function startDeletionScheduler(deps: Deps, options: DeletionSchedulerOptions = {}): DeletionScheduler {
  const expression = deps.config.deletionSchedule;
  if (!expression) return { nextRunAt: () => null, stop: async () => undefined };
  const cron = parseDeletionSchedule(expression);
  const timer = options.timer ?? systemTimer;
  const runBatch = options.runBatch ?? runDeletionBatch;
  const clock: Clock = deps.clock;
  const log = deps.log.child({ module: 'deletion-scheduler' });

  let due: Date | null = null;
  let handle: unknown = null;
  let stopped = false;
  let running: Promise<void> | null = null;
  const abort = new AbortController();

  const waitForDue = () => {
    if (!due || stopped) return;
    const wait = Math.min(Math.max(due.getTime() - clock.now().getTime(), 0), MAX_TIMER_MS);
    handle = timer.setTimeout(wake, wait);
  };
  const arm = (after: Date): Date | null => {
    due = cron.nextRun(after);
    waitForDue();
    return due;
  };

  // A timer may wake early (long waits are capped, clocks drift): run only once the clock says so.
  function wake() {
    handle = null;
    if (stopped || !due) return;
    const now = clock.now();
    if (now.getTime() < due.getTime()) {
      waitForDue();
      return;
    }
    const ranFor = due;
    running = runBatch(deps, { signal: abort.signal })
      .then(
        (result) => log.info({ ...result, scheduled_for: ranFor.toISOString() }, 'scheduled deletion batch done'),
        (error: unknown) => {
          if (abort.signal.aborted) log.info('scheduled deletion batch stopped; the next run resumes it');
          else log.error({ err: error }, 'scheduled deletion batch failed; the next run resumes it');
        },
      )
      .finally(() => {
        running = null;
        // From the later of now and the run just made, so a slow batch never runs twice for one slot.
        const after = clock.now().getTime() > ranFor.getTime() ? clock.now() : ranFor;
        arm(after);
      });
  }

  const first = arm(clock.now());
  log.info({ schedule: expression, next_run: first?.toISOString() ?? null }, 'deletion scheduler started');

  return {
    nextRunAt: () => due,
    async stop() {
      stopped = true;
      if (handle !== null) timer.clearTimeout(handle);
      handle = null;
      abort.abort(new Error('deletion scheduler stopped'));
      await running;
    },
  };
}
