import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HeavyRefusal, HeavySlots, type HeavySlot } from './heavy-slots.ts';

const limits = { perKey: 2, perProject: 3, perProcess: 4, queueLength: 2, queueWaitMs: 60_000 };
const a1 = { key: 'a1', project: 'A' };
const a2 = { key: 'a2', project: 'A' };
const b1 = { key: 'b1', project: 'B' };
const c1 = { key: 'c1', project: 'C' };

/** Whether the promise has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

async function refusal(promise: Promise<unknown>): Promise<HeavyRefusal> {
  const error = await promise.then(
    () => null,
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof HeavyRefusal, `expected a refusal, got ${String(error)}`);
  return error;
}

describe('heavy request slots', () => {
  it('grants at once under every limit, and each limit holds on its own', async () => {
    const slots = new HeavySlots({ ...limits, queueLength: 0 });
    assert.equal((await slots.acquire(a1)).waitedMs, 0, 'granted at once: no wait reported');
    await slots.acquire(a1);
    assert.deepEqual({ ...(await refusal(slots.acquire(a1))) }, { ...new HeavyRefusal('key', 2) });
    await slots.acquire(a2);
    const project = await refusal(slots.acquire(a2));
    assert.equal(project.limit, 'project');
    assert.equal(project.max, 3);
    await slots.acquire(b1);
    const process = await refusal(slots.acquire(c1));
    assert.equal(process.limit, 'process');
    assert.deepEqual(slots.stats, { running: 4, waiting: 0 });
  });

  it('queues a request over its key limit and grants it when its key frees a slot', async () => {
    const slots = new HeavySlots(limits);
    const first = await slots.acquire(a1);
    await slots.acquire(a1);
    const third = slots.acquire(a1);
    assert.equal(await settled(third), false);
    // Another key runs meanwhile: a waiter held by its own key holds up nobody else.
    const other = await slots.acquire(b1);
    assert.deepEqual(slots.stats, { running: 3, waiting: 1 });
    other.release();
    assert.equal(await settled(third), false, 'another key freeing a slot does not let a1 past its limit');
    first.release();
    const granted = await third;
    assert.ok(granted.waitedMs >= 1, 'a queued request reports its wait');
    assert.deepEqual(slots.stats, { running: 2, waiting: 0 });
  });

  it('grants waiters in arrival order when the process limit frees', async () => {
    const slots = new HeavySlots({ ...limits, perKey: 1, perProject: 1, perProcess: 1 });
    const running = await slots.acquire(a1);
    const order: string[] = [];
    const b = slots.acquire(b1).then((slot) => (order.push('b'), slot));
    const c = slots.acquire(c1).then((slot) => (order.push('c'), slot));
    running.release();
    (await b).release();
    (await c).release();
    assert.deepEqual(order, ['b', 'c']);
  });

  it('refuses at once past the queue length of a key, and after the longest wait', async () => {
    const slots = new HeavySlots({ ...limits, perKey: 1, queueLength: 1, queueWaitMs: 20 });
    await slots.acquire(a1);
    const waiting = slots.acquire(a1);
    assert.equal((await refusal(slots.acquire(a1))).limit, 'key', 'the queue of a1 is full');
    assert.equal((await refusal(waiting)).limit, 'key', 'the waiter gave up after queueWaitMs');
    assert.deepEqual(slots.stats, { running: 1, waiting: 0 });
  });

  it('a waiter whose client left is dropped; a release counts once', async () => {
    const slots = new HeavySlots({ ...limits, perKey: 1 });
    const slot: HeavySlot = await slots.acquire(a1);
    const gone = new AbortController();
    const waiting = slots.acquire(a1, gone.signal);
    gone.abort(new Error('client left'));
    await assert.rejects(waiting, /client left/);
    slot.release();
    slot.release();
    assert.deepEqual(slots.stats, { running: 0, waiting: 0 });
    const again = await slots.acquire(a1);
    await assert.rejects(slots.acquire(a1, AbortSignal.abort()), { name: 'AbortError' });
    assert.deepEqual(slots.stats, { running: 1, waiting: 0 });
    again.release();
  });
});
