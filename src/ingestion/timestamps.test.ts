import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseClientTime, resolveTimestamp } from './timestamps.ts';

const now = new Date('2026-06-01T12:00:00.000Z');
const iso = (date: Date) => date.toISOString();

test('no timestamp and no offset: now', () => {
  assert.equal(iso(resolveTimestamp({}, now, null)), iso(now));
});

test('a timestamp without sent_at is kept', () => {
  assert.equal(iso(resolveTimestamp({ timestamp: '2026-05-01T00:00:00Z' }, now, null)), '2026-05-01T00:00:00.000Z');
});

test('sent_at corrects the client clock skew', () => {
  // The client clock is 1 h behind: it sent at 11:00 an event it stamped 10:59.
  const sentAt = new Date('2026-06-01T11:00:00Z');
  assert.equal(iso(resolveTimestamp({ timestamp: '2026-06-01T10:59:00Z' }, now, sentAt)), '2026-06-01T11:59:00.000Z');
  assert.equal(
    iso(resolveTimestamp({ timestamp: '2026-06-01T10:59:00Z', ignoreSentAt: true }, now, sentAt)),
    '2026-06-01T10:59:00.000Z',
  );
});

test('offset wins over timestamp', () => {
  assert.equal(
    iso(resolveTimestamp({ timestamp: '2020-01-01T00:00:00Z', offset: 5000 }, now, null)),
    '2026-06-01T11:59:55.000Z',
  );
});

test('more than 23 h in the future is clamped to now; less is kept', () => {
  assert.equal(iso(resolveTimestamp({ timestamp: '2026-06-02T12:00:00Z' }, now, null)), iso(now));
  assert.equal(iso(resolveTimestamp({ timestamp: '2026-06-02T10:00:00Z' }, now, null)), '2026-06-02T10:00:00.000Z');
});

test('invalid timestamps fall back to now', () => {
  assert.equal(iso(resolveTimestamp({ timestamp: 'not a date' }, now, null)), iso(now));
  assert.equal(iso(resolveTimestamp({ timestamp: '+010000-01-01T00:00:00Z' }, now, null)), iso(now));
});

test('zoneless ISO text is UTC', () => {
  assert.equal(parseClientTime('2026-01-02T03:04:05')?.toISOString(), '2026-01-02T03:04:05.000Z');
  assert.equal(parseClientTime('2026-01-02 03:04:05.5')?.toISOString(), '2026-01-02T03:04:05.500Z');
  assert.equal(parseClientTime('2026-01-02T03:04:05+02:00')?.toISOString(), '2026-01-02T01:04:05.000Z');
});
