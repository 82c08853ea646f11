import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../errors.ts';
import { normalizeEvent, type NormalizableEvent } from './normalize-event.step.ts';

const now = new Date('2026-06-01T12:00:00Z');
const context = { now, sentAt: null, attrPrefix: 'batch.2' };
const normalize = (event: NormalizableEvent, sentAt: Date | null = null) =>
  normalizeEvent(event, { ...context, sentAt });

test('top-level $set/$set_once merge into the properties ones, the top level winning; $unset lists join', () => {
  const event = normalize({
    event: 'e',
    distinct_id: 'd',
    properties: { $set: { a: 'props', b: 1 }, $set_once: { o: 1 }, $unset: ['x'] },
    $set: { a: 'top' },
    $set_once: { p: 2 },
    $unset: ['y', 'x'],
  });
  assert.deepEqual(event?.updates, { set: { a: 'top', b: 1 }, setOnce: { o: 1, p: 2 }, unset: ['x', 'y'] });
  assert.deepEqual(event?.properties.$set, { a: 'top', b: 1 });
  const objectUnset = normalize({ event: 'e', distinct_id: 'd', properties: { $unset: { k: true } } });
  assert.deepEqual(objectUnset?.updates.unset, ['k']);
});

test('sent_at is recorded; a given uuid is kept (lower case), an empty one generated', () => {
  const sentAt = new Date('2026-06-01T11:59:00Z');
  const event = normalize({ event: 'e', distinct_id: 'd', uuid: '0190A0B0-C0D0-7000-8000-000000000001' }, sentAt);
  assert.equal(event?.properties.$sent_at, sentAt.toISOString());
  assert.equal(event?.uuid, '0190a0b0-c0d0-7000-8000-000000000001');
  assert.equal(event?.uuidGiven, true);
  const generated = normalize({ event: 'e', distinct_id: 'd', uuid: '' });
  assert.equal(generated?.uuidGiven, false);
  assert.match(generated?.uuid ?? '', /^[0-9a-f-]{36}$/);
});

test('only boolean false turns person processing off, which strips the person updates', () => {
  const off = normalize({
    event: 'e',
    distinct_id: 'd',
    properties: { $process_person_profile: false, $set: { a: 1 } },
  });
  assert.equal(off?.processPerson, false);
  assert.deepEqual(off?.updates, { set: {}, setOnce: {}, unset: [] });
  assert.equal(off?.properties.$set, undefined);
  assert.equal(
    normalize({ event: 'e', distinct_id: 'd', properties: { $process_person_profile: 'false' } })?.processPerson,
    true,
  );
});

test('$groupidentify keeps person processing but never changes properties', () => {
  const event = normalize({ event: '$groupidentify', distinct_id: '$company_acme', properties: { $set: { a: 1 } } });
  assert.equal(event?.processPerson, true);
  assert.deepEqual(event?.updates.set, {});
});

test('merge sources: $anon_distinct_id by presence, alias when truthy', () => {
  assert.deepEqual(
    normalize({ event: '$identify', distinct_id: 'u', properties: { $anon_distinct_id: null } })?.merge,
    { kind: '$identify', source: 'null' },
  );
  assert.equal(normalize({ event: '$identify', distinct_id: 'u' })?.merge, null);
  assert.deepEqual(normalize({ event: '$create_alias', distinct_id: 'u', properties: { alias: 5 } })?.merge, {
    kind: '$create_alias',
    source: '5',
  });
  assert.equal(normalize({ event: '$create_alias', distinct_id: 'u', properties: { alias: '' } })?.merge, null);
});

test('errors name the field of the event', () => {
  for (const [event, attr] of [
    [{ event: '', distinct_id: 'd' }, 'batch.2.event'],
    [{ event: 'e', distinct_id: '' }, 'batch.2.distinct_id'],
    [{ event: 'e', distinct_id: 'd', uuid: 'nope' }, 'batch.2.uuid'],
  ] as const) {
    assert.throws(
      () => normalize(event),
      (error: unknown) => error instanceof AppError && error.status === 400 && error.attr === attr,
    );
  }
});

test('event names longer than 200 characters are cut to 200, by code points', () => {
  const long = normalize({ event: '😀'.repeat(250), distinct_id: 'd' });
  assert.equal(Array.from(long?.event ?? '').length, 200);
  assert.equal(long?.event, '😀'.repeat(200));
  assert.equal(normalize({ event: 'short', distinct_id: 'd' })?.event, 'short');
});
