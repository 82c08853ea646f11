import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { ConfigError, defaultConfig, loadConfig } from '../../src/config.ts';
import type { Deps } from '../../src/deps.ts';
import {
  runDeletionBatch,
  type DeletionBatchOptions,
  type DeletionBatchResult,
} from '../../src/jobs/deletion-batch.ts';
import { nextDeletionRun, startDeletionScheduler, type Timer } from '../../src/jobs/deletion-scheduler.ts';
import { serverExtensions } from '../../src/server.ts';
import { setupTestApp, TestClock, type TestContext } from '../helpers/app.ts';
import { makePerson, makeTenant } from '../helpers/factories.ts';
import { totalsOf } from './deletion-seed.ts';
import { countEvents, deletePersonQueuingEvents, findTask, seedEvents } from './deletion-seed.ts';

const HOUR = 3_600_000;
const SUNDAY_5AM = '0 5 * * 0';

/** Holds what the scheduler armed; the test fires it when it likes. */
class FakeTimer implements Timer {
  armed: Array<{ callback: () => void; ms: number; id: number; cleared: boolean }> = [];
  setTimeout(callback: () => void, ms: number) {
    const id = this.armed.length + 1;
    this.armed.push({ callback, ms, id, cleared: false });
    return id;
  }
  clearTimeout(handle: unknown) {
    const entry = this.armed.find((armed) => armed.id === handle);
    if (entry) entry.cleared = true;
  }
  get last() {
    const entry = this.armed.at(-1);
    assert.ok(entry, 'a timer is armed');
    return entry;
  }
  fire() {
    const entry = this.last;
    assert.equal(entry.cleared, false);
    entry.callback();
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('deletion schedule', () => {
  test('the default is Sundays 05:00 UTC; off turns it off; a bad expression is a config error', () => {
    assert.equal(loadConfig({}).deletionSchedule, SUNDAY_5AM);
    assert.equal(loadConfig({ DELETION_SCHEDULE: 'off' }).deletionSchedule, null);
    assert.equal(loadConfig({ DELETION_SCHEDULE: 'OFF' }).deletionSchedule, null);
    assert.equal(loadConfig({ DELETION_SCHEDULE: '*/5 * * * *' }).deletionSchedule, '*/5 * * * *');
    for (const bad of ['every sunday', '61 5 * * 0', '0 5 * * 9']) {
      assert.throws(
        () => loadConfig({ DELETION_SCHEDULE: bad, PORT: 'nope' }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.problems.some((problem) => problem.startsWith('DELETION_SCHEDULE')) &&
          error.problems.some((problem) => problem.startsWith('PORT')),
      );
    }
  });

  test('the next run from any time before Sunday 05:00 UTC is that Sunday 05:00, then a week later', () => {
    assert.equal(
      nextDeletionRun(SUNDAY_5AM, new Date('2026-11-21T23:00:00Z'))?.toISOString(),
      '2026-11-22T05:00:00.000Z',
    );
    assert.equal(
      nextDeletionRun(SUNDAY_5AM, new Date('2026-11-16T00:00:00Z'))?.toISOString(),
      '2026-11-22T05:00:00.000Z',
    );
    assert.equal(
      nextDeletionRun(SUNDAY_5AM, new Date('2026-11-22T04:59:59.999Z'))?.toISOString(),
      '2026-11-22T05:00:00.000Z',
    );
    assert.equal(
      nextDeletionRun(SUNDAY_5AM, new Date('2026-11-22T05:00:00Z'))?.toISOString(),
      '2026-11-29T05:00:00.000Z',
    );
    // UTC whatever the server's zone: 05:00 UTC is not 05:00 in New York.
    assert.equal(
      nextDeletionRun(SUNDAY_5AM, new Date('2026-11-22T04:00:00-05:00'))?.toISOString(),
      '2026-11-29T05:00:00.000Z',
    );
  });
});

describe('deletion scheduler', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await setupTestApp({ clock: new TestClock(new Date('2026-11-21T23:00:00Z')) });
  });
  after(() => ctx.close());

  const depsWith = (deletionSchedule: string | null): Deps => ({
    ...ctx.deps,
    config: defaultConfig({ deletionSchedule }),
  });

  test('fires at Sunday 05:00 UTC and not before, runs the batch, then waits a week', async () => {
    const db = ctx.deps.db;
    const tenant = await makeTenant(db);
    const person = await makePerson(db, tenant.project.id, { distinctIds: ['s-1'] });
    await seedEvents(db, tenant.project.id, 's-1', person.id, 3);
    await deletePersonQueuingEvents(db, person);

    ctx.clock.set('2026-11-21T23:00:00Z');
    const timer = new FakeTimer();
    const runs: Array<Promise<DeletionBatchResult>> = [];
    const runBatch = (deps: Deps, options: DeletionBatchOptions) => {
      const run = runDeletionBatch(deps, options);
      runs.push(run);
      return run;
    };
    const scheduler = startDeletionScheduler(depsWith(SUNDAY_5AM), { timer, runBatch });
    try {
      assert.equal(scheduler.nextRunAt()?.toISOString(), '2026-11-22T05:00:00.000Z');
      assert.equal(timer.last.ms, 6 * HOUR);

      // The timer wakes a minute early: nothing runs, it waits the minute left.
      ctx.clock.set('2026-11-22T04:59:00Z');
      timer.fire();
      await settle();
      assert.equal(runs.length, 0);
      assert.equal(timer.last.ms, 60_000);
      assert.equal(await countEvents(db, tenant.project.id, { personId: person.id }), 3);
      assert.equal((await findTask(db, tenant.project.id, person.uuid)).delete_verified_at, null);

      ctx.clock.set('2026-11-22T05:00:00Z');
      timer.fire();
      assert.equal(runs.length, 1);
      assert.deepEqual(totalsOf(await runs[0]), { processed: 1, events_deleted: 3 });
      await settle();
      assert.equal(await countEvents(db, tenant.project.id, { personId: person.id }), 0);
      assert.equal(
        (await findTask(db, tenant.project.id, person.uuid)).delete_verified_at?.toISOString(),
        '2026-11-22T05:00:00.000Z',
      );
      assert.equal(scheduler.nextRunAt()?.toISOString(), '2026-11-29T05:00:00.000Z');
      assert.equal(timer.last.ms, 7 * 24 * HOUR);
    } finally {
      await scheduler.stop();
    }
    assert.equal(timer.last.cleared, true, 'stop clears the timer');
  });

  test('a failed run is logged and the schedule goes on', async () => {
    ctx.clock.set('2026-11-22T05:00:00Z');
    const timer = new FakeTimer();
    let calls = 0;
    const scheduler = startDeletionScheduler(depsWith('0 * * * *'), {
      timer,
      runBatch: async () => {
        calls += 1;
        throw new Error('database down');
      },
    });
    try {
      assert.equal(timer.last.ms, HOUR);
      ctx.clock.set('2026-11-22T06:00:00Z');
      timer.fire();
      await settle();
      await settle();
      assert.equal(calls, 1);
      assert.equal(scheduler.nextRunAt()?.toISOString(), '2026-11-22T07:00:00.000Z');
      assert.equal(timer.armed.length, 2);
    } finally {
      await scheduler.stop();
    }
  });

  test('stop aborts a running batch and arms nothing more', async () => {
    ctx.clock.set('2026-11-22T04:00:00Z');
    const timer = new FakeTimer();
    let signal: AbortSignal | undefined;
    const scheduler = startDeletionScheduler(depsWith(SUNDAY_5AM), {
      timer,
      runBatch: (_deps, options) =>
        new Promise((_resolve, reject) => {
          signal = options.signal;
          options.signal?.addEventListener('abort', () => reject(options.signal?.reason));
        }),
    });
    ctx.clock.set('2026-11-22T05:00:00Z');
    timer.fire();
    assert.ok(signal && !signal.aborted);
    await scheduler.stop();
    assert.equal(signal.aborted, true);
    assert.equal(timer.armed.length, 1);
  });

  test('off: nothing is armed', async () => {
    const timer = new FakeTimer();
    const scheduler = startDeletionScheduler(depsWith(null), { timer });
    assert.equal(scheduler.nextRunAt(), null);
    assert.equal(timer.armed.length, 0);
    await scheduler.stop();
  });

  test('the server starts the scheduler as one of its extensions', async () => {
    ctx.clock.set('2026-11-21T23:00:00Z');
    const lines: string[] = [];
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const deps: Deps = { ...depsWith(SUNDAY_5AM), log };
    const started = serverExtensions.map((start) => start(deps));
    for (const extension of started) await extension.stop();
    const entry = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.msg === 'deletion scheduler started');
    assert.ok(entry, 'a server extension starts the deletion scheduler');
    assert.equal(entry.schedule, SUNDAY_5AM);
    assert.equal(entry.next_run, '2026-11-22T05:00:00.000Z');
  });
});
