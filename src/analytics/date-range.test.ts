import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addInterval, formatLocal, localTime, parseDate, resolveRange, truncate } from './date-range.ts';

const now = new Date('2024-01-20T12:34:56Z');
const local = (text: string) => new Date(`${text}Z`);

describe('date-range', () => {
  it('gives the wall-clock time of an instant in a timezone, across DST', () => {
    assert.equal(formatLocal(localTime(new Date('2024-01-10T16:00:00Z'), 'Asia/Tokyo')), '2024-01-11 01:00:00.000');
    assert.equal(
      formatLocal(localTime(new Date('2024-07-01T12:00:00Z'), 'America/New_York')),
      '2024-07-01 08:00:00.000',
    );
    assert.equal(
      formatLocal(localTime(new Date('2024-01-01T12:00:00Z'), 'America/New_York')),
      '2024-01-01 07:00:00.000',
    );
  });

  it('truncates to hour, day, Sunday-started week and month', () => {
    const wednesday = local('2024-01-10T15:45:00');
    assert.equal(formatLocal(truncate(wednesday, 'hour')), '2024-01-10 15:00:00.000');
    assert.equal(formatLocal(truncate(wednesday, 'day')), '2024-01-10 00:00:00.000');
    assert.equal(formatLocal(truncate(wednesday, 'week')), '2024-01-07 00:00:00.000');
    assert.equal(formatLocal(truncate(local('2024-01-07T10:00:00'), 'week')), '2024-01-07 00:00:00.000');
    assert.equal(formatLocal(truncate(wednesday, 'month')), '2024-01-01 00:00:00.000');
    // Calendar months clamp the day to the target month's last one (relativedelta).
    assert.equal(formatLocal(addInterval(local('2024-01-31T00:00:00'), 'month', 1)), '2024-02-29 00:00:00.000');
    assert.equal(formatLocal(addInterval(local('2024-03-31T10:00:00'), 'month', -13)), '2023-02-28 10:00:00.000');
  });

  it('parses relative dates against now in the timezone', () => {
    assert.equal(formatLocal(parseDate('-7d', 'UTC', now, 'date_from').value), '2024-01-13 12:34:56.000');
    assert.equal(parseDate('-24h', 'UTC', now, 'date_from').hourly, true);
    assert.equal(formatLocal(parseDate('-1mStart', 'UTC', now, 'date_from').value), '2023-12-01 00:00:00.000');
    assert.equal(formatLocal(parseDate('-1dEnd', 'UTC', now, 'date_from').value), '2024-01-19 23:59:59.999');
    assert.equal(formatLocal(parseDate('-0d', 'Asia/Tokyo', now, 'date_from').value), '2024-01-20 21:34:56.000');
  });

  it('parses relative months and years on the calendar, with or without a count before Start/End', () => {
    const endOfMarch = new Date('2024-03-31T12:00:00Z');
    const parse = (raw: string) => formatLocal(parseDate(raw, 'UTC', endOfMarch, 'date_from').value);
    assert.equal(parse('-1m'), '2024-02-29 12:00:00.000');
    assert.equal(parse('-1mStart'), '2024-02-01 00:00:00.000');
    assert.equal(parse('-1mEnd'), '2024-02-29 23:59:59.999');
    assert.equal(parse('mStart'), '2024-03-01 00:00:00.000');
    assert.equal(parse('dStart'), '2024-03-31 00:00:00.000');
    assert.equal(parse('-1yStart'), '2023-01-01 00:00:00.000');
    assert.equal(parse('yEnd'), '2024-12-31 23:59:59.999');
    assert.throws(
      () => parseDate('m', 'UTC', endOfMarch, 'date_from'),
      (error: { attr?: string }) => error.attr === 'date_from',
    );
  });

  it('refuses dates the views cannot shift inside the database range', () => {
    for (const bad of [
      '9999-12-31',
      '9999-12-31T23:00:00-12:00',
      '0001-01-01',
      '0050-06-01',
      '2024-01-01T00:00:00+99:99',
    ]) {
      assert.throws(
        () => parseDate(bad, 'UTC', now, 'date_to'),
        (error: { attr?: string }) => error.attr === 'date_to',
        bad,
      );
    }
  });

  it('parses absolute dates, converting explicit offsets into the timezone', () => {
    assert.equal(formatLocal(parseDate('2024-01-10', 'UTC', now, 'x').value), '2024-01-10 00:00:00.000');
    assert.equal(formatLocal(parseDate('2024-01-10 14:00:00', 'UTC', now, 'x').value), '2024-01-10 14:00:00.000');
    assert.equal(
      formatLocal(parseDate('2024-01-10T16:00:00Z', 'Asia/Tokyo', now, 'x').value),
      '2024-01-11 01:00:00.000',
    );
    for (const bad of ['2024-02-30', 'tomorrow', '2024-01-10T25:00:00', '']) {
      assert.throws(
        () => parseDate(bad, 'UTC', now, 'date_from'),
        (error: { attr?: string }) => error.attr === 'date_from',
      );
    }
  });

  it('resolves ranges: -7d at midnight to the end of today by default, hours for hourly', () => {
    const range = resolveRange({ interval: 'day', explicit: false, timezone: 'UTC', now });
    assert.equal(formatLocal(range.from as Date), '2024-01-13 00:00:00.000');
    assert.equal(formatLocal(range.to), '2024-01-21 00:00:00.000');
    const hourly = resolveRange({
      interval: 'hour',
      explicit: false,
      timezone: 'UTC',
      now,
      dateFrom: '-2h',
      dateTo: '2024-01-20 12:10',
    });
    assert.equal(formatLocal(hourly.from as Date), '2024-01-20 10:00:00.000');
    assert.equal(formatLocal(hourly.to), '2024-01-20 13:00:00.000');
    const explicit = resolveRange({
      interval: 'day',
      explicit: true,
      timezone: 'UTC',
      now,
      dateFrom: '2024-01-10 10:30',
      dateTo: '2024-01-10 11:00',
    });
    assert.equal(formatLocal(explicit.from as Date), '2024-01-10 10:30:00.000');
    assert.equal(formatLocal(explicit.to), '2024-01-10 11:00:00.001');
    assert.equal(resolveRange({ interval: 'day', explicit: false, timezone: 'UTC', now, dateFrom: 'all' }).from, null);
  });
});
