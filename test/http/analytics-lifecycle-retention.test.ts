import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makePerson, makeProject, type TestPerson } from '../helpers/factories.ts';
import {
  makeEvents,
  setTimezone,
  setupAnalytics,
  sortedUuids,
  uuidsOf,
  type AnalyticsContext,
} from '../helpers/analytics-factories.ts';

const events = [{ id: '$pageview', type: 'events' }];

describe('persons/lifecycle', () => {
  let a: AnalyticsContext;
  let fresh: TestPerson;
  let old: TestPerson;
  let early: TestPerson;
  before(async () => {
    a = await setupAnalytics();
    const db = a.ctx.deps.db;
    fresh = await makePerson(db, a.teamId, { createdAt: '2024-01-10T08:00:00Z' });
    old = await makePerson(db, a.teamId, { createdAt: '2020-01-01T00:00:00Z' });
    early = await makePerson(db, a.teamId, { createdAt: '2024-01-05T00:00:00Z' });
    await makeEvents(db, a.teamId, fresh, [
      ['$pageview', '2024-01-10T09:00:00Z'],
      ['$pageview', '2024-01-11T09:00:00Z'],
      ['$pageview', '2024-01-13T09:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, old, [
      ['$pageview', '2024-01-11T09:00:00Z'],
      ['other', '2024-01-12T09:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, early, [
      ['$pageview', '2024-01-07T09:00:00Z'],
      ['$pageview', '2024-01-08T09:00:00Z'],
    ]);
  });
  after(() => a.ctx.close());

  const ask = (target_date: string, lifecycle_type: string, extra: Record<string, unknown> = {}) =>
    a.get('lifecycle', {
      events,
      date_from: '2024-01-08',
      date_to: '2024-01-14',
      target_date,
      lifecycle_type,
      ...extra,
    });

  it('labels a first active period equal to the creation period new', async () => {
    const res = await ask('2024-01-10', 'new');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(uuidsOf(res.body), [fresh.uuid]);
    assert.equal(res.body.missing_persons, 0);
    assert.equal(res.body.next, null);
  });

  it('labels activity right after an active period returning, and after a gap resurrecting', async () => {
    assert.deepEqual(uuidsOf((await ask('2024-01-11', 'returning')).body), [fresh.uuid]);
    assert.deepEqual(uuidsOf((await ask('2024-01-11', 'resurrecting')).body), [old.uuid]);
    assert.deepEqual(uuidsOf((await ask('2024-01-13', 'resurrecting')).body), [fresh.uuid]);
    assert.deepEqual(uuidsOf((await ask('2024-01-13', 'returning')).body), []);
  });

  it('looks one period before the range: activity there makes the first day returning', async () => {
    assert.deepEqual(uuidsOf((await ask('2024-01-08', 'returning')).body), [early.uuid]);
    assert.deepEqual(uuidsOf((await ask('2024-01-08', 'new')).body), []);
  });

  it('labels the period after the last active one dormant', async () => {
    assert.deepEqual(uuidsOf((await ask('2024-01-12', 'dormant')).body), sortedUuids(fresh, old));
    assert.deepEqual(uuidsOf((await ask('2024-01-09', 'dormant')).body), [early.uuid]);
    assert.deepEqual(uuidsOf((await ask('2024-01-14', 'dormant')).body), [fresh.uuid]);
  });

  it('buckets by week', async () => {
    // Weeks start Sunday: all three are active in the week of Jan 7; only fresh was created in it
    // (early was created in the week of Dec 31, so its first active week is a resurrection).
    const res = await ask('2024-01-07', 'new', { interval: 'week', date_from: '2024-01-01', date_to: '2024-01-20' });
    assert.deepEqual(uuidsOf(res.body), [fresh.uuid]);
    const resurrecting = await ask('2024-01-07', 'resurrecting', {
      interval: 'week',
      date_from: '2024-01-01',
      date_to: '2024-01-20',
    });
    assert.deepEqual(uuidsOf(resurrecting.body), sortedUuids(old, early));
    const dormant = await ask('2024-01-14', 'dormant', {
      interval: 'week',
      date_from: '2024-01-01',
      date_to: '2024-01-20',
    });
    assert.deepEqual(uuidsOf(dormant.body), sortedUuids(fresh, old, early));
  });

  it('buckets periods and the creation day in the project timezone', async () => {
    const project = await makeProject(a.ctx.deps.db, a.tenant.organization);
    await setTimezone(a.ctx.deps.db, project.id, 'America/New_York');
    // 03:00Z and 03:30Z on Jan 10 are the evening of Jan 9 in New York.
    const person = await makePerson(a.ctx.deps.db, project.id, { createdAt: '2024-01-10T03:00:00Z' });
    await makeEvents(a.ctx.deps.db, project.id, person, [['$pageview', '2024-01-10T03:30:00Z']]);
    const params = { events, date_from: '2024-01-08', date_to: '2024-01-14', lifecycle_type: 'new' };
    assert.deepEqual(uuidsOf((await a.get('lifecycle', { ...params, target_date: '2024-01-09' }, project.id)).body), [
      person.uuid,
    ]);
    assert.deepEqual(
      uuidsOf((await a.get('lifecycle', { ...params, target_date: '2024-01-10' }, project.id)).body),
      [],
    );
    assert.deepEqual(
      uuidsOf(
        (await a.get('lifecycle', { ...params, target_date: '2024-01-10', lifecycle_type: 'dormant' }, project.id))
          .body,
      ),
      [person.uuid],
    );
  });

  it('requires target_date and lifecycle_type', async () => {
    const noDate = await a.get('lifecycle', { events, lifecycle_type: 'new' });
    assert.equal(noDate.status, 400);
    assert.deepEqual([noDate.body.attr, noDate.body.detail], ['target_date', 'Must include specified date']);
    const noType = await a.get('lifecycle', { events, target_date: '2024-01-10' });
    assert.equal(noType.status, 400);
    assert.deepEqual([noType.body.attr, noType.body.detail], ['lifecycle_type', 'Must include lifecycle type']);
    const badType = await a.get('lifecycle', { events, target_date: '2024-01-10', lifecycle_type: 'zombie' });
    assert.equal(badType.status, 400);
    assert.equal(badType.body.attr, 'lifecycle_type');
  });

  it('pages with next while a full page is found', async () => {
    const first = await ask('2024-01-12', 'dormant', { limit: '1' });
    assert.equal(first.body.results[0].people.length, 1);
    assert.ok(first.body.next);
    const second = await a.follow(first.body.next);
    assert.equal(second.body.results[0].people.length, 1);
    assert.notEqual(second.body.results[0].people[0].uuid, first.body.results[0].people[0].uuid);
  });
});

describe('persons/retention', () => {
  let a: AnalyticsContext;
  let p1: TestPerson;
  let p2: TestPerson;
  let p3: TestPerson;
  let veteran: TestPerson;
  before(async () => {
    a = await setupAnalytics();
    const db = a.ctx.deps.db;
    p1 = await makePerson(db, a.teamId);
    p2 = await makePerson(db, a.teamId);
    p3 = await makePerson(db, a.teamId);
    veteran = await makePerson(db, a.teamId);
    await makeEvents(db, a.teamId, p1, [
      ['$pageview', '2024-01-04T10:00:00Z'],
      ['$pageview', '2024-01-05T10:00:00Z'],
      ['$pageview', '2024-01-07T10:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, p2, [
      ['$pageview', '2024-01-04T23:00:00Z'],
      ['$pageview', '2024-01-06T10:00:00Z'],
      ['signup', '2024-01-04T22:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, p3, [
      ['$pageview', '2024-01-05T10:00:00Z'],
      ['$pageview', '2024-01-06T10:00:00Z'],
    ]);
    await makeEvents(db, a.teamId, veteran, [
      ['$pageview', '2023-12-01T10:00:00Z'],
      ['$pageview', '2024-01-04T10:00:00Z'],
    ]);
  });
  after(() => a.ctx.close());

  // date_to 2024-01-14 → the window ends 2024-01-15 and starts 11 days earlier, on 2024-01-04.
  const base = { date_to: '2024-01-14T06:00:00Z' };
  const ones = (n: number, at: number[]) => Array.from({ length: n }, (_, i) => (at.includes(i) ? 1 : 0));

  it('lists cohort 0 with appearances, most appearances first', async () => {
    const res = await a.get('retention', base);
    assert.equal(res.status, 200, res.text);
    const rows = res.body.result as { person: { uuid: string }; appearances: number[] }[];
    assert.equal(rows[0].person.uuid, p1.uuid);
    assert.deepEqual(rows[0].appearances, ones(11, [0, 1, 3]));
    const byUuid = new Map(rows.map((row) => [row.person.uuid, row.appearances]));
    assert.deepEqual(byUuid.get(p2.uuid), ones(11, [0, 2]));
    assert.deepEqual(byUuid.get(veteran.uuid), ones(11, [0]));
    assert.equal(rows.length, 3);
    assert.equal(res.body.missing_persons, 0);
    assert.equal(res.body.next, null);
  });

  it('selects a later cohort with selected_interval or breakdown_values', async () => {
    for (const params of [{ selected_interval: '1' }, { breakdown_values: [1] }]) {
      const res = await a.get('retention', { ...base, ...params });
      assert.equal(res.status, 200, res.text);
      const byUuid = new Map(
        (res.body.result as { person: { uuid: string }; appearances: number[] }[]).map((row) => [
          row.person.uuid,
          row.appearances,
        ]),
      );
      assert.deepEqual([...byUuid.keys()].sort(), sortedUuids(p1, p3));
      assert.deepEqual(byUuid.get(p3.uuid), ones(10, [0, 1]));
      assert.deepEqual(byUuid.get(p1.uuid), ones(10, [0, 2]));
    }
  });

  it('keeps only first-time performers for retention_first_time', async () => {
    const res = await a.get('retention', { ...base, retention_type: 'retention_first_time' });
    const uuids = (res.body.result as { person: { uuid: string } }[]).map((row) => row.person.uuid).sort();
    assert.deepEqual(uuids, sortedUuids(p1, p2));
  });

  it('answers CSV with the appearances flattened', async () => {
    const res = await a.get('retention', { ...base, format: 'csv' });
    assert.equal(res.status, 200, res.text);
    const [header, ...lines] = res.text.trim().split('\n');
    const columns = header.split(',');
    assert.ok(
      columns.includes('person.uuid') && columns.includes('appearances.0') && columns.includes('appearances.10'),
      header,
    );
    assert.equal(lines.length, 3);
  });

  it('uses a different returning entity', async () => {
    const res = await a.get('retention', {
      ...base,
      target_entity: { id: 'signup', type: 'events' },
      returning_entity: { id: '$pageview', type: 'events' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((row: { person: { uuid: string } }) => row.person.uuid),
      [p2.uuid],
    );
    assert.deepEqual(res.body.result[0].appearances, ones(11, [0, 2]));
  });

  it('pages and answers 400 for bad parameters', async () => {
    const first = await a.get('retention', { ...base, limit: '2' });
    assert.equal(first.body.result.length, 2);
    assert.ok(first.body.next);
    const second = await a.follow(first.body.next);
    assert.equal(second.body.result.length, 1);
    assert.equal(second.body.next, null);
    for (const [params, attr] of [
      [{ period: 'Fortnight' }, 'period'],
      [{ selected_interval: '11' }, 'selected_interval'],
      [{ total_intervals: 'x' }, 'total_intervals'],
      [{ target_entity: '{bad' }, 'target_entity'],
      [{ date_to: 'soon' }, 'date_to'],
    ] as const) {
      const res = await a.get('retention', { ...base, ...params });
      assert.equal(res.status, 400, `${JSON.stringify(params)} → ${res.text}`);
      assert.equal(res.body.attr, attr);
    }
  });

  it('counts calendar months and hours from the window start', async () => {
    const project = await makeProject(a.ctx.deps.db, a.tenant.organization);
    const person = await makePerson(a.ctx.deps.db, project.id);
    await makeEvents(a.ctx.deps.db, project.id, person, [
      ['$pageview', '2024-01-15T10:00:00Z'],
      ['$pageview', '2024-03-12T10:00:00Z'],
      ['$pageview', '2024-06-04T08:45:00Z'],
      ['$pageview', '2024-06-04T10:40:00Z'],
    ]);
    // Month, 3 intervals, date_to Mar 10: E = Apr 10, S = Jan 10; periods [Jan 10, Feb 10), [Feb 10, Mar 10), [Mar 10, Apr 10).
    const months = await a.get(
      'retention',
      { date_to: '2024-03-10', period: 'Month', total_intervals: '3' },
      project.id,
    );
    assert.equal(months.status, 200, months.text);
    assert.deepEqual(
      months.body.result.map((row: { appearances: number[] }) => row.appearances),
      [[1, 0, 1]],
    );
    // Hour, 3 intervals, date_to 10:30: E = 11:30 (not truncated), S = 08:30.
    const hours = await a.get(
      'retention',
      { date_to: '2024-06-04T10:30:00Z', period: 'Hour', total_intervals: '3' },
      project.id,
    );
    assert.deepEqual(
      hours.body.result.map((row: { appearances: number[] }) => row.appearances),
      [[1, 0, 1]],
    );
  });

  it('adds calendar months to the end of a month without overflowing into the next', async () => {
    const project = await makeProject(a.ctx.deps.db, a.tenant.organization);
    const person = await makePerson(a.ctx.deps.db, project.id);
    await makeEvents(a.ctx.deps.db, project.id, person, [
      ['$pageview', '2023-12-30T10:00:00Z'],
      ['$pageview', '2024-02-01T10:00:00Z'],
    ]);
    // Month, 2 intervals, date_to Jan 31: E = Feb 29 (not Mar 2), S = Dec 29; periods [Dec 29, Jan 29), [Jan 29, Feb 29).
    const res = await a.get('retention', { date_to: '2024-01-31', period: 'Month', total_intervals: '2' }, project.id);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((row: { person: { uuid: string }; appearances: number[] }) => [
        row.person.uuid,
        row.appearances,
      ]),
      [[person.uuid, [1, 1]]],
    );
  });

  it('defaults an empty returning_entity to the target entity', async () => {
    const res = await a.get('retention', {
      ...base,
      target_entity: { id: 'signup', type: 'events' },
      returning_entity: '',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((row: { appearances: number[] }) => row.appearances),
      [ones(11, [0])],
    );
  });

  it('buckets weeks from the preceding Sunday', async () => {
    // date_to 2024-01-14 Week, 2 intervals: E = 2024-01-21, S = 2024-01-07 (a Sunday); p1 acted on Jan 7.
    const res = await a.get('retention', { ...base, period: 'Week', total_intervals: '2' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      res.body.result.map((row: { person: { uuid: string }; appearances: number[] }) => [
        row.person.uuid,
        row.appearances,
      ]),
      [[p1.uuid, [1, 0]]],
    );
    const earlier = await a.get('retention', { date_to: '2024-01-06', period: 'Week', total_intervals: '2' });
    // E = 2024-01-13, S = 2023-12-30 → moved back to Sunday 2023-12-24; cohort 1 = week of Dec 31.
    const byUuid = new Map(
      (earlier.body.result as { person: { uuid: string }; appearances: number[] }[]).map((row) => [
        row.person.uuid,
        row.appearances,
      ]),
    );
    assert.equal(byUuid.size, 0);
    const cohort1 = await a.get('retention', {
      date_to: '2024-01-06',
      period: 'Week',
      total_intervals: '2',
      selected_interval: '1',
    });
    assert.deepEqual(
      cohort1.body.result.map((row: { person: { uuid: string } }) => row.person.uuid).sort(),
      sortedUuids(p1, p2, p3, veteran),
    );
  });
});
