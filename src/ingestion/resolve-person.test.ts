import assert from 'node:assert/strict';
import { test } from 'node:test';
import { normalizeEvent, type NormalizableEvent } from './normalize-event.step.ts';
import { openPersonBatch, personOf, type LoadedPerson } from './person-batch.ts';
import { resolvePerson } from './resolve-person.step.ts';
import { personUuid } from './uuid.ts';

const now = new Date('2026-06-01T12:00:00Z');
const prepare = (event: NormalizableEvent) => {
  const prepared = normalizeEvent(event, { now, sentAt: null, attrPrefix: '' });
  assert.ok(prepared);
  return prepared;
};

function existing(id: number, fields: Partial<LoadedPerson> = {}): LoadedPerson {
  return {
    id,
    uuid: `00000000-0000-4000-8000-00000000000${id}`,
    properties: {},
    is_identified: false,
    created_at: new Date('2026-01-01T00:00:00Z'),
    version: 0,
    ...fields,
  };
}

test('first sight creates a person from $set_once and $set, stamped with the event time', () => {
  const batch = openPersonBatch(7, [], new Map([['u1', null]]));
  const resolved = resolvePerson(
    batch,
    prepare({
      event: 'e',
      distinct_id: 'u1',
      timestamp: '2026-05-01T00:00:00Z',
      properties: { $set: { a: 1 }, $set_once: { a: 0, b: 2 } },
    }),
  );
  assert.equal(resolved.person?.uuid, personUuid(7, 'u1'));
  assert.deepEqual(resolved.person?.properties, { a: 1, b: 2, $creator_event_uuid: resolved.event.uuid });
  assert.equal(resolved.person?.createdAt.toISOString(), '2026-05-01T00:00:00.000Z');
  assert.equal(resolved.person?.isIdentified, false);
  assert.deepEqual(
    batch.newDistinctIds.map((entry) => entry.distinctId),
    ['u1'],
  );
});

test('snapshots keep the properties as of each event', () => {
  const batch = openPersonBatch(7, [], new Map([['u1', null]]));
  const first = resolvePerson(batch, prepare({ event: 'e', distinct_id: 'u1', $set: { n: 1 } }));
  const second = resolvePerson(batch, prepare({ event: 'e', distinct_id: 'u1', $set: { n: 2 } }));
  const third = resolvePerson(batch, prepare({ event: 'e', distinct_id: 'u1', properties: { $unset: ['n'] } }));
  const made = { $creator_event_uuid: first.event.uuid };
  assert.deepEqual(
    [first.personProperties, second.personProperties, third.personProperties],
    [{ n: 1, ...made }, { n: 2, ...made }, made],
  );
});

test('$identify with $anon_distinct_id merges the anonymous person into the identified one', () => {
  const anon = existing(1, { properties: { a: 'anon', shared: 'anon' }, created_at: new Date('2025-01-01T00:00:00Z') });
  const user = existing(2, { properties: { shared: 'user' }, version: 3 });
  const batch = openPersonBatch(
    7,
    [anon, user],
    new Map([
      ['anon', 1],
      ['user', 2],
    ]),
  );
  const resolved = resolvePerson(
    batch,
    prepare({
      event: '$identify',
      distinct_id: 'user',
      properties: { $anon_distinct_id: 'anon', $set: { email: 'u@x' } },
    }),
  );
  const survivor = resolved.person;
  assert.equal(survivor?.id, 2);
  assert.deepEqual(survivor?.properties, { a: 'anon', shared: 'user', email: 'u@x' });
  assert.equal(survivor?.createdAt.toISOString(), '2025-01-01T00:00:00.000Z');
  assert.equal(survivor?.isIdentified, true);
  assert.equal(personOf(batch, 'anon'), survivor);
  assert.equal(batch.merges.length, 1);
});

test('an identified source is not merged, except by $merge_dangerously', () => {
  const load = () =>
    openPersonBatch(
      7,
      [existing(1, { is_identified: true }), existing(2)],
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
  const refused = load();
  const resolved = resolvePerson(
    refused,
    prepare({ event: '$create_alias', distinct_id: 'b', properties: { alias: 'a' } }),
  );
  assert.deepEqual(resolved.warnings, ['cannot_merge_already_identified']);
  assert.notEqual(personOf(refused, 'a'), personOf(refused, 'b'));
  assert.equal(personOf(refused, 'b')?.isIdentified, true);
  const forced = load();
  resolvePerson(forced, prepare({ event: '$merge_dangerously', distinct_id: 'b', properties: { alias: 'a' } }));
  assert.equal(personOf(forced, 'a'), personOf(forced, 'b'));
});

test('illegal ids never merge; the event still updates its own person', () => {
  const batch = openPersonBatch(
    7,
    [],
    new Map([
      ['user', null],
      ['anonymous', null],
    ]),
  );
  const resolved = resolvePerson(
    batch,
    prepare({
      event: '$identify',
      distinct_id: 'user',
      properties: { $anon_distinct_id: 'anonymous', $set: { k: 1 } },
    }),
  );
  assert.deepEqual(resolved.warnings, ['cannot_merge_with_illegal_distinct_id']);
  assert.equal(personOf(batch, 'anonymous'), null);
  assert.deepEqual(resolved.person?.properties, { k: 1, $creator_event_uuid: resolved.event.uuid });
  assert.equal(resolved.person?.isIdentified, false);
});

test('neither id known: one identified person with both ids, uuid from the target', () => {
  const batch = openPersonBatch(
    7,
    [],
    new Map([
      ['user', null],
      ['anon', null],
    ]),
  );
  const resolved = resolvePerson(
    batch,
    prepare({ event: '$identify', distinct_id: 'user', properties: { $anon_distinct_id: 'anon' } }),
  );
  assert.equal(resolved.person?.uuid, personUuid(7, 'user'));
  assert.equal(resolved.person?.isIdentified, true);
  assert.deepEqual(resolved.person?.distinctIds, ['user', 'anon']);
});

test('personless events create nothing and are attributed to an existing person', () => {
  const batch = openPersonBatch(
    7,
    [existing(1, { properties: { p: 1 } })],
    new Map<string, number | null>([
      ['known', 1],
      ['unknown', null],
    ]),
  );
  const known = resolvePerson(
    batch,
    prepare({ event: 'e', distinct_id: 'known', properties: { $process_person_profile: false, $set: { p: 2 } } }),
  );
  assert.equal(known.person?.id, 1);
  assert.deepEqual(known.personProperties, { p: 1 });
  const unknown = resolvePerson(
    batch,
    prepare({ event: 'e', distinct_id: 'unknown', properties: { $process_person_profile: false } }),
  );
  assert.equal(unknown.person, null);
  assert.equal(batch.created.length, 0);
  assert.equal(
    normalizeEvent(
      { event: '$identify', distinct_id: 'x', properties: { $process_person_profile: false } },
      { now, sentAt: null, attrPrefix: '' },
    ),
    null,
  );
});
