// Moves of events between persons go in chunks of rows (move-events.ts), so that no statement of a
// large merge runs past capture's time limit: with a chunk of 3, every event still moves, each once,
// keeping its id and uuid, and nothing else moves.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { personlessKeySql } from '../../src/db/person-key.ts';
import { ingestEvents } from '../../src/ingestion/ingest.ts';
import { moveEventsOfPerson, movePersonlessEvents } from '../../src/ingestion/move-events.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant } from '../helpers/factories.ts';

let ctx: TestContext;
let db: Db;
let teamId: number;

before(async () => {
  ctx = await setupTestApp();
  db = ctx.deps.db;
  const team = (await makeTenant(db)).project;
  teamId = team.id;
  await ingestEvents(ctx.deps, db, team, [
    { event: 'signed up', distinct_id: 'source', properties: { $set: { plan: 'free' } } },
    { event: 'signed up', distinct_id: 'target', properties: { $set: { plan: 'pro' } } },
    { event: 'signed up', distinct_id: 'linked-user', properties: { $set: { plan: 'pro' } } },
    { event: '$pageview', distinct_id: 'visitor', properties: { $process_person_profile: false } },
    { event: '$pageview', distinct_id: 'stranger', properties: { $process_person_profile: false } },
  ]);
});
after(() => ctx.close());

async function personOf(distinctId: string): Promise<number> {
  const { rows } = await sql<{ person_id: number }>`select person_id from person_distinct_ids
    where team_id = ${teamId}::integer and distinct_id = ${distinctId}::text`.execute(db);
  return Number(rows[0].person_id);
}

/** `count` more events of `distinctId`, under `personId` (null: personless). */
async function addEvents(distinctId: string, personId: number | null, count: number) {
  const id = sql<string>`${distinctId}::text`;
  await sql`insert into events (team_id, uuid, event, distinct_id, person_id, person_key, timestamp)
    select ${teamId}::integer, gen_random_uuid(), 'page', ${id}, ${personId}::bigint,
      coalesce(${personId}::bigint, ${personlessKeySql(id)}), now() - make_interval(secs => g)
    from generate_series(1, ${count}::integer) g`.execute(db);
}

/** Each event of `distinctId`: id, uuid, person and key, in id order. */
async function eventsOf(distinctId: string) {
  const { rows } = await sql<{ id: string; uuid: string; person_id: string | null; person_key: string }>`select
      id::text, uuid::text, person_id::text, person_key::text from events
    where team_id = ${teamId}::integer and distinct_id = ${distinctId}::text order by id`.execute(db);
  return rows;
}

test('a merge moves every event of the person, chunk after chunk', async () => {
  const source = await personOf('source');
  const target = await personOf('target');
  await addEvents('source', source, 9); // 10 with the captured one: chunks of 3, 3, 3 and 1
  const before = await eventsOf('source');
  const targetBefore = await eventsOf('target');

  const moved = await moveEventsOfPerson(db, teamId, source, target, 3);

  assert.equal(moved, 10);
  const after = await eventsOf('source');
  assert.deepEqual(
    after.map((row) => [row.id, row.uuid]),
    before.map((row) => [row.id, row.uuid]),
  );
  assert.ok(after.every((row) => row.person_id === String(target) && row.person_key === String(target)));
  const { rows } = await sql<{ n: number }>`select count(*)::integer as n from events
    where team_id = ${teamId}::integer and (person_id = ${source}::bigint or person_key = ${source}::bigint)`.execute(
    db,
  );
  assert.equal(rows[0].n, 0);
  assert.deepEqual(await eventsOf('target'), targetBefore);
});

test('a chunk-sized merge ends with an empty chunk and moves each event once', async () => {
  const source = await personOf('linked-user');
  const target = await personOf('target');
  await addEvents('linked-user', source, 5); // 6: exactly two chunks of 3

  assert.equal(await moveEventsOfPerson(db, teamId, source, target, 3), 6);
  assert.equal((await eventsOf('linked-user')).filter((row) => row.person_id === String(target)).length, 6);
  assert.equal(await moveEventsOfPerson(db, teamId, source, target, 3), 0);
});

test("a link moves every personless event of an id that has a person now, and no other id's", async () => {
  await addEvents('visitor', null, 7); // 8 with the captured one
  await addEvents('stranger', null, 2);
  const stranger = await eventsOf('stranger');
  const person = await personOf('target');
  // The visitor's placeholder now names a person, as an attach leaves it before the link runs.
  await sql`update person_distinct_ids set person_id = ${person}::bigint
    where team_id = ${teamId}::integer and distinct_id = 'visitor'`.execute(db);

  const moved = await movePersonlessEvents(db, teamId, ['visitor', 'stranger'], 3);

  assert.equal(moved, 8);
  const visitor = await eventsOf('visitor');
  assert.equal(visitor.length, 8);
  assert.ok(visitor.every((row) => row.person_id === String(person) && row.person_key === String(person)));
  assert.deepEqual(await eventsOf('stranger'), stranger);
});
