import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ingestEvents } from '../../src/ingestion/ingest.ts';
import { personUuid } from '../../src/ingestion/uuid.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import { setupTestApp, TestClock, type TestContext } from '../helpers/app.ts';
import { countPersons, eventsOf, firstEventUuid, personByDistinctId, post } from './capture-helpers.ts';

let ctx: TestContext;
let tenant: Tenant;

before(async () => {
  ctx = await setupTestApp({ clock: new TestClock(new Date('2026-06-01T12:00:00.000Z')) });
  tenant = await makeTenant(ctx.deps.db);
});
after(() => ctx.close());

async function send(...batch: object[]) {
  const response = await post(ctx.app, '/batch/', { api_key: tenant.project.api_token, batch });
  assert.equal(response.statusCode, 200, response.body);
}
const person = (distinctId: string) => personByDistinctId(ctx.deps.db, tenant.project.id, distinctId);
const eventsNamed = async (name: string) =>
  (await eventsOf(ctx.deps.db, tenant.project.id)).filter((event) => event.event === name);
/** `$creator_event_uuid` of the person `distinctId` made: its first event's uuid. */
const creator = async (distinctId: string) => ({
  $creator_event_uuid: await firstEventUuid(ctx.deps.db, tenant.project.id, distinctId),
});

describe('persons from capture', () => {
  test('first sight creates the person, created at the event time, with a deterministic uuid', async () => {
    await send({
      event: 'pageview',
      distinct_id: 'create-1',
      timestamp: '2026-05-01T08:00:00.000Z',
      properties: { $set_once: { first: 'a' }, $set: { plan: 'free' } },
    });
    const created = await person('create-1');
    assert.ok(created);
    assert.deepEqual(created.properties, { first: 'a', plan: 'free', ...(await creator('create-1')) });
    assert.equal(created.created_at.toISOString(), '2026-05-01T08:00:00.000Z');
    assert.equal(created.uuid, personUuid(tenant.project.id, 'create-1'));
    assert.equal(created.is_identified, false);
    assert.deepEqual(created.distinct_ids, ['create-1']);
  });

  test('a person made by capture names its creating event in $creator_event_uuid, and keeps it', async () => {
    const uuids = [
      '0190a0a0-0000-7000-8000-000000000001',
      '0190a0a0-0000-7000-8000-000000000002',
      '0190a0a0-0000-7000-8000-000000000003',
    ];
    // The event's own uuid wins over a $set of the key, as the platform sets it after the sets.
    await send(
      {
        event: 'first',
        distinct_id: 'creator-1',
        uuid: uuids[0],
        $set: { $creator_event_uuid: 'spoofed', plan: 'free' },
      },
      { event: 'second', distinct_id: 'creator-1', uuid: uuids[1], $set: { plan: 'pro' } },
    );
    assert.deepEqual((await person('creator-1'))?.properties, { plan: 'pro', $creator_event_uuid: uuids[0] });
    // A person made by a merge of two new ids names the merging event.
    await send({
      event: '$identify',
      distinct_id: 'creator-user',
      uuid: uuids[2],
      properties: { $anon_distinct_id: 'creator-anon' },
    });
    assert.deepEqual((await person('creator-anon'))?.properties, { $creator_event_uuid: uuids[2] });
    // Personless events make no person, so they name none; the first person-processed one does.
    await send(
      { event: 'anon', distinct_id: 'creator-2', properties: { $process_person_profile: false } },
      { event: 'later', distinct_id: 'creator-2' },
    );
    const [later] = await eventsNamed('later');
    assert.deepEqual((await person('creator-2'))?.properties, { $creator_event_uuid: later.uuid });
  });

  test('$set, $set_once and $unset in properties and at the top level, in their order', async () => {
    await send(
      { event: 'e', distinct_id: 'props-1', properties: { $set: { a: 1, b: 1, gone: true } } },
      // top level wins over properties on the same key; $set_once never overwrites, even a null
      {
        event: 'e',
        distinct_id: 'props-1',
        properties: { $set: { a: 'props' }, $set_once: { b: 2, c: 3 } },
        $set: { a: 'top' },
      },
      { event: 'e', distinct_id: 'props-1', $set: { n: null } },
      { event: 'e', distinct_id: 'props-1', $set_once: { n: 'x' }, properties: { $unset: ['gone'] } },
      // set then unset of an existing key removes it; of a new key the set wins
      { event: 'e', distinct_id: 'props-1', $set: { b: 5, fresh: 1 }, $unset: ['b', 'fresh'] },
    );
    assert.deepEqual((await person('props-1'))?.properties, {
      a: 'top',
      c: 3,
      n: null,
      fresh: 1,
      ...(await creator('props-1')),
    });
  });

  test('events of one request apply in order and each event keeps the properties as of itself', async () => {
    await send(
      { event: 'snapshot', distinct_id: 'order-1', $set: { step: 1 } },
      { event: 'snapshot', distinct_id: 'order-1', $set: { step: 2 } },
      { event: 'snapshot', distinct_id: 'order-1', properties: { $unset: ['step'] } },
    );
    const events = await eventsNamed('snapshot');
    const made = await creator('order-1');
    assert.equal(made.$creator_event_uuid, events[0].uuid);
    assert.deepEqual(
      events.map((event) => event.person_properties),
      [{ step: 1, ...made }, { step: 2, ...made }, made],
    );
    const stored = await person('order-1');
    assert.deepEqual(stored?.properties, made);
    assert.ok(events.every((event) => event.person_id === stored?.id));
  });

  test('$identify with $anon_distinct_id merges the anonymous person into the identified one', async () => {
    await send({
      event: 'anon view',
      distinct_id: 'anon-1',
      timestamp: '2026-04-01T00:00:00.000Z',
      $set: { source: 'ad', shared: 'anon' },
    });
    await send({
      event: 'login',
      distinct_id: 'user-1',
      timestamp: '2026-05-01T00:00:00.000Z',
      $set: { shared: 'user' },
    });
    const anonBefore = await person('anon-1');
    const userBefore = await person('user-1');
    await send({
      event: '$identify',
      distinct_id: 'user-1',
      properties: { $anon_distinct_id: 'anon-1', $set: { email: 'u1@example.com' } },
    });
    const merged = await person('user-1');
    assert.ok(merged && anonBefore && userBefore);
    assert.equal(merged.id, userBefore.id);
    assert.equal(merged.uuid, userBefore.uuid);
    assert.deepEqual(merged.distinct_ids, ['user-1', 'anon-1']);
    // The surviving person's own creator wins over the merged one's.
    assert.deepEqual(merged.properties, {
      source: 'ad',
      shared: 'user',
      email: 'u1@example.com',
      ...(await creator('user-1')),
    });
    assert.equal(merged.created_at.toISOString(), '2026-04-01T00:00:00.000Z');
    assert.equal(merged.is_identified, true);
    const gone = await ctx.deps.db
      .selectFrom('persons')
      .select('id')
      .where('team_id', '=', tenant.project.id)
      .where('id', '=', anonBefore.id)
      .executeTakeFirst();
    assert.equal(gone, undefined);
    // Past events follow the surviving person.
    assert.equal((await eventsNamed('anon view'))[0].person_id, merged.id);
    const activity = await ctx.deps.db
      .selectFrom('activity_log')
      .selectAll()
      .where('organization_id', '=', tenant.organization.id)
      .where('activity', '=', 'merged')
      .where('item_id', '=', String(merged.id))
      .execute();
    assert.equal(activity.length, 1);
    assert.equal(activity[0].scope, 'Person');
    assert.equal(activity[0].user_id, null);
    assert.equal(activity[0].team_id, tenant.project.id);
    assert.equal(activity[0].organization_id, tenant.organization.id);
    assert.deepEqual(activity[0].detail, {
      changes: [{ type: 'Person', action: 'merged', field: null, before: null, after: { distinct_ids: ['anon-1'] } }],
      name: merged.uuid,
    });
  });

  test('a merge moves static cohort memberships to the surviving person', async () => {
    const db = ctx.deps.db;
    await send({ event: 'e', distinct_id: 'cohort-anon' }, { event: 'e', distinct_id: 'cohort-user' });
    const anon = await person('cohort-anon');
    const user = await person('cohort-user');
    assert.ok(anon && user);
    const cohort = await db
      .insertInto('cohorts')
      .values({ team_id: tenant.project.id, name: 'static', is_static: true, created_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('cohort_people')
      .values({ team_id: tenant.project.id, cohort_id: cohort.id, person_id: anon.id })
      .execute();
    await send({ event: '$identify', distinct_id: 'cohort-user', properties: { $anon_distinct_id: 'cohort-anon' } });
    const members = await db
      .selectFrom('cohort_people')
      .select('person_id')
      .where('team_id', '=', tenant.project.id)
      .where('cohort_id', '=', cohort.id)
      .execute();
    assert.deepEqual(
      members.map((member) => member.person_id),
      [user.id],
    );
  });

  test('$identify of two new ids in one request: one identified person, uuid from the identified id', async () => {
    await send(
      { event: 'view', distinct_id: 'anon-2' },
      { event: '$identify', distinct_id: 'user-2', properties: { $anon_distinct_id: 'anon-2' } },
      { event: 'after', distinct_id: 'user-2' },
    );
    const identified = await person('anon-2');
    assert.ok(identified);
    assert.equal(identified.uuid, personUuid(tenant.project.id, 'anon-2'));
    assert.deepEqual(identified.distinct_ids, ['anon-2', 'user-2']);
    assert.equal(identified.is_identified, true);
    const brandNew = async () => {
      await send({ event: '$identify', distinct_id: 'user-3', properties: { $anon_distinct_id: 'anon-3' } });
      return person('anon-3');
    };
    const both = await brandNew();
    assert.equal(both?.uuid, personUuid(tenant.project.id, 'user-3'));
    assert.deepEqual(both?.distinct_ids, ['user-3', 'anon-3']);
  });

  test('$identify without $anon_distinct_id leaves the person unidentified', async () => {
    await send({ event: '$identify', distinct_id: 'plain-identify', properties: { $set: { k: 1 } } });
    const stored = await person('plain-identify');
    assert.equal(stored?.is_identified, false);
    assert.deepEqual(stored?.properties, { k: 1, ...(await creator('plain-identify')) });
  });

  test('$create_alias attaches the alias to the person', async () => {
    await send({ event: 'e', distinct_id: 'alias-user', $set: { a: 1 } });
    await send({
      event: '$create_alias',
      distinct_id: 'alias-user',
      properties: { distinct_id: 'alias-user', alias: 'alias-other' },
    });
    const aliased = await person('alias-other');
    assert.deepEqual(aliased?.distinct_ids, ['alias-user', 'alias-other']);
    assert.equal(aliased?.is_identified, true);
  });

  test('two identified persons are not merged, except by $merge_dangerously', async () => {
    await send({ event: '$identify', distinct_id: 'id-a', properties: { $anon_distinct_id: 'anon-a' } });
    await send({ event: '$identify', distinct_id: 'id-b', properties: { $anon_distinct_id: 'anon-b' } });
    await send({
      event: '$identify',
      distinct_id: 'id-a',
      properties: { $anon_distinct_id: 'id-b', $set: { tried: true } },
    });
    const a = await person('id-a');
    const b = await person('id-b');
    assert.notEqual(a?.id, b?.id);
    assert.deepEqual(a?.properties, { tried: true, ...(await creator('id-a')) });
    await send({ event: '$merge_dangerously', distinct_id: 'id-a', properties: { alias: 'id-b' } });
    const merged = await person('id-b');
    assert.equal(merged?.id, a?.id);
    assert.deepEqual(merged?.distinct_ids, ['id-a', 'anon-a', 'id-b', 'anon-b']);
  });

  test('illegal distinct ids never merge, with the case rules', async () => {
    const before = await countPersons(ctx.deps.db, tenant.project.id);
    for (const illegal of [
      'anonymous',
      'Anonymous',
      '"guest"',
      "'null'",
      'null',
      '0',
      'undefined',
      '[object Object]',
      '   ',
    ]) {
      await send({ event: '$identify', distinct_id: 'illegal-user', properties: { $anon_distinct_id: illegal } });
      assert.equal(await person(illegal), null, illegal);
    }
    assert.equal((await person('illegal-user'))?.is_identified, false);
    assert.equal(await countPersons(ctx.deps.db, tenant.project.id), before + 1);
    // These look alike but are legal.
    await send({ event: '$identify', distinct_id: 'legal-user', properties: { $anon_distinct_id: 'NULL' } });
    assert.deepEqual((await person('NULL'))?.distinct_ids, ['legal-user', 'NULL']);
  });

  test('a merge whose other id is an object or a list reads it as text, whatever keys the object holds', async () => {
    // JSON can carry {"toString": ""}: String() on it throws, so the other id is read without calling it.
    const hostile = JSON.parse('{"toString": "", "valueOf": 1}');
    await send(
      { event: '$merge_dangerously', distinct_id: 'object-merger', properties: { alias: hostile } },
      { event: '$create_alias', distinct_id: 'object-merger', properties: { alias: [hostile] } },
      { event: '$identify', distinct_id: 'object-merger', properties: { $anon_distinct_id: hostile } },
    );
    assert.equal(await person('[object Object]'), null);
    assert.deepEqual((await person('object-merger'))?.distinct_ids, ['object-merger']);
    await send({ event: '$create_alias', distinct_id: 'list-merger', properties: { alias: ['list', 7] } });
    assert.deepEqual((await person('list,7'))?.distinct_ids, ['list-merger', 'list,7']);
  });

  test('$process_person_profile false: no person is made or changed, person-only events are dropped', async () => {
    const before = await countPersons(ctx.deps.db, tenant.project.id);
    await send(
      { event: 'personless', distinct_id: 'nobody', properties: { $process_person_profile: false, $set: { x: 1 } } },
      {
        event: '$identify',
        distinct_id: 'nobody',
        properties: { $process_person_profile: false, $anon_distinct_id: 'other' },
      },
    );
    assert.equal(await countPersons(ctx.deps.db, tenant.project.id), before);
    const [event] = await eventsNamed('personless');
    assert.equal(event.person_id, null);
    assert.deepEqual(event.person_properties, {});
    assert.equal(event.properties.$set, undefined);
    assert.equal((await eventsOf(ctx.deps.db, tenant.project.id)).filter((e) => e.distinct_id === 'nobody').length, 1);

    await send({ event: 'e', distinct_id: 'somebody', $set: { kept: 1 } });
    await send({
      event: 'personless known',
      distinct_id: 'somebody',
      properties: { $process_person_profile: false, $set: { kept: 2 } },
    });
    const somebody = await person('somebody');
    const made = await creator('somebody');
    assert.deepEqual(somebody?.properties, { kept: 1, ...made });
    const [known] = await eventsNamed('personless known');
    assert.equal(known.person_id, somebody?.id);
    assert.deepEqual(known.person_properties, { kept: 1, ...made });
  });

  test('automatic person properties: listed event properties go to $set and first values to $initial_*, $os_name stands in for $os', async () => {
    await send(
      {
        event: '$pageview',
        distinct_id: 'auto-1',
        properties: {
          $browser: 'Firefox',
          $os_name: 'iOS',
          utm_source: 'ad',
          $current_url: 'https://a.example/',
          other: 1,
        },
      },
      {
        event: '$pageview',
        distinct_id: 'auto-1',
        properties: { $browser: 'Chrome', $os: 'Linux', $os_name: 'ignored' },
        $set: { $current_url: 'explicit' },
      },
      { event: '$snapshot', distinct_id: 'auto-1', properties: { $browser: 'Safari', $pathname: '/snap' } },
    );
    assert.deepEqual((await person('auto-1'))?.properties, {
      $browser: 'Chrome',
      $os: 'Linux',
      utm_source: 'ad',
      $current_url: 'explicit',
      $initial_browser: 'Firefox',
      $initial_os: 'iOS',
      $initial_utm_source: 'ad',
      $initial_current_url: 'https://a.example/',
      ...(await creator('auto-1')),
    });
  });

  test('an ordinary event that only changes existing volatile keys forces no write; anything else writes them all', async () => {
    await send({
      event: '$pageview',
      distinct_id: 'volatile-1',
      properties: { $browser: 'Firefox', $current_url: '/a' },
    });
    const created = await person('volatile-1');
    await send({
      event: '$pageview',
      distinct_id: 'volatile-1',
      properties: { $browser: 'Chrome', $current_url: '/b' },
    });
    const skipped = await person('volatile-1');
    assert.equal(skipped?.version, created?.version, 'no write for volatile keys alone');
    assert.equal((skipped?.properties as Record<string, unknown>).$browser, 'Firefox');
    const [, second] = await eventsNamed('$pageview').then((events) =>
      events.filter((e) => e.distinct_id === 'volatile-1'),
    );
    assert.equal(
      (second.person_properties as Record<string, unknown>).$browser,
      'Chrome',
      'the event snapshot still sees the change',
    );

    // A new key from the list, a $set event, or another changed key forces the write of everything pending.
    await send(
      { event: '$pageview', distinct_id: 'volatile-1', properties: { $browser: 'Safari' } },
      { event: '$pageview', distinct_id: 'volatile-1', properties: { $os: 'Linux' } },
    );
    const written = await person('volatile-1');
    assert.ok((written?.version ?? 0) > (created?.version ?? 0));
    assert.deepEqual(
      { browser: written?.properties.$browser, os: written?.properties.$os, url: written?.properties.$current_url },
      { browser: 'Safari', os: 'Linux', url: '/a' },
    );
    await send({ event: '$set', distinct_id: 'volatile-1', properties: { $browser: 'Edge' } });
    assert.equal((await person('volatile-1'))?.properties.$browser, 'Edge');
  });

  test('survey shown records $survey_last_seen_date; $exception never changes an existing person', async () => {
    await send({ event: 'survey shown', distinct_id: 'survey-1', timestamp: '2026-05-20T10:00:00.000Z' });
    assert.deepEqual((await person('survey-1'))?.properties, {
      $survey_last_seen_date: '2026-05-20T10:00:00.000Z',
      ...(await creator('survey-1')),
    });
    await send(
      { event: '$exception', distinct_id: 'exception-1', $set: { first: 1 } },
      { event: '$exception', distinct_id: 'exception-1', $set: { first: 2, second: 2 } },
    );
    assert.deepEqual((await person('exception-1'))?.properties, { first: 1, ...(await creator('exception-1')) });
  });

  test('$groupidentify makes a person without properties of its own (only its creator event)', async () => {
    await send({
      event: '$groupidentify',
      distinct_id: '$company_acme',
      properties: { $group_type: 'company', $group_key: 'acme', $set: { ignored: 1 } },
    });
    assert.deepEqual((await person('$company_acme'))?.properties, await creator('$company_acme'));
  });
});

describe('ingestEvents for the persons API', () => {
  test('inside a caller transaction: $set then $delete_person_property, recorded in the same transaction', async () => {
    await send({ event: 'e', distinct_id: 'api-1', $set: { keep: 1, drop: 2 } });
    const made = await creator('api-1');
    await ctx.deps.db.transaction().execute(async (trx) => {
      await ingestEvents(ctx.deps, trx, tenant.project, [
        { event: '$set', distinct_id: 'api-1', properties: { $set: { added: true } } },
      ]);
      await ingestEvents(ctx.deps, trx, tenant.project, [
        { event: '$delete_person_property', distinct_id: 'api-1', properties: { $unset: ['drop'] } },
      ]);
      const inside = await trx
        .selectFrom('persons')
        .select('properties')
        .where('team_id', '=', tenant.project.id)
        .where('uuid', '=', personUuid(tenant.project.id, 'api-1'))
        .executeTakeFirst();
      assert.deepEqual(inside?.properties, { keep: 1, added: true, ...made });
    });
    assert.deepEqual((await person('api-1'))?.properties, { keep: 1, added: true, ...made });
    const events = await eventsOf(ctx.deps.db, tenant.project.id);
    const deleted = events.find((event) => event.event === '$delete_person_property');
    assert.deepEqual(deleted?.person_properties, { keep: 1, added: true, ...made });
  });

  test('a rolled-back caller transaction leaves nothing behind', async () => {
    await assert.rejects(
      ctx.deps.db.transaction().execute(async (trx) => {
        await ingestEvents(ctx.deps, trx, tenant.project, [
          { event: '$set', distinct_id: 'api-rollback', $set: { x: 1 } },
        ]);
        throw new Error('caller failed');
      }),
    );
    assert.equal(await person('api-rollback'), null);
  });
});

describe('rare write paths', () => {
  test('a new person whose deterministic uuid is taken gets a random one, with its events', async () => {
    const taken = personUuid(tenant.project.id, 'collide-1');
    await ctx.deps.db
      .insertInto('persons')
      .values({
        team_id: tenant.project.id,
        uuid: taken,
        properties: JSON.stringify({ squatter: true }),
        created_at: new Date(),
      })
      .execute();
    await send({ event: 'collide', distinct_id: 'collide-1', $set: { mine: true } });
    const created = await person('collide-1');
    assert.ok(created);
    assert.notEqual(created.uuid, taken);
    assert.deepEqual(created.properties, { mine: true, ...(await creator('collide-1')) });
    const [event] = await eventsNamed('collide');
    assert.equal(event.person_id, created.id);
  });

  test('a merge and a taken uuid in one batch (the statement-by-statement path)', async () => {
    await ctx.deps.db
      .insertInto('persons')
      .values({
        team_id: tenant.project.id,
        uuid: personUuid(tenant.project.id, 'collide-2'),
        properties: '{}',
        created_at: new Date(),
      })
      .execute();
    await send({ event: 'e', distinct_id: 'step-anon', $set: { a: 1 } });
    await send(
      { event: 'e', distinct_id: 'step-user', $set: { u: 1 } },
      { event: '$identify', distinct_id: 'step-user', properties: { $anon_distinct_id: 'step-anon' } },
      { event: 'collide two', distinct_id: 'collide-2' },
    );
    const merged = await person('step-anon');
    assert.deepEqual(merged?.distinct_ids, ['step-user', 'step-anon']);
    assert.deepEqual(merged?.properties, { a: 1, u: 1, ...(await creator('step-user')) });
    const collided = await person('collide-2');
    assert.ok(collided);
    assert.equal((await eventsNamed('collide two'))[0].person_id, collided.id);
  });

  test('a batch larger than one statement holds is written in parts, in order', async () => {
    const batch = Array.from({ length: 4500 }, (_, i) => ({
      event: 'large batch',
      distinct_id: `large-${i % 2200}`,
      $set: { last: i },
    }));
    await send(...batch);
    const events = await eventsNamed('large batch');
    assert.equal(events.length, 4500);
    // Each of the first three events made its person.
    assert.deepEqual(
      events.slice(0, 3).map((event) => event.person_properties),
      events.slice(0, 3).map((event, last) => ({ last, $creator_event_uuid: event.uuid })),
    );
    assert.deepEqual((await person('large-5'))?.properties, { last: 4405, ...(await creator('large-5')) });
    assert.deepEqual((await person('large-2199'))?.properties, { last: 4399, ...(await creator('large-2199')) });
  });
});
