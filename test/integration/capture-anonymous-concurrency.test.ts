// Personless events of an id and the event that gives the id a person, at the same time, over and
// over: whichever commits first, every personless event ends up with the person.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openPostgres } from '../../src/db/database.ts';
import type { Deps } from '../../src/deps.ts';
import { ingestEvents, type CaptureEvent } from '../../src/ingestion/ingest.ts';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import { makeTenant } from '../helpers/factories.ts';

// PGlite runs one transaction at a time: a few rounds show the outcome, PostgreSQL races them.
const ROUNDS = process.env.TEST_DATABASE_URL ? 12 : 3;
const IDS = 8;
const anonymous = { $process_person_profile: false };

let ctx: TestContext;

before(async () => {
  ctx = await setupTestApp();
});
after(() => ctx.close());

const views = (anon: string, tag: string, n: number): CaptureEvent[] =>
  Array.from({ length: n }, (_, j) => ({
    event: '$pageview',
    distinct_id: anon,
    properties: { ...anonymous, tag: `${tag}${j}` },
  }));

/** Each path that gives `anon` a person, by the index of the id. */
function linkOf(i: number, anon: string, user: string): CaptureEvent {
  switch (i % 4) {
    case 0:
      return { event: '$identify', distinct_id: user, properties: { $anon_distinct_id: anon } };
    case 1:
      return { event: '$create_alias', distinct_id: user, properties: { alias: anon } };
    case 2:
      return { event: '$merge_dangerously', distinct_id: user, properties: { alias: anon } };
    default:
      return { event: '$set', distinct_id: anon, properties: { $set: { linked: true } } };
  }
}

/** The batches of one round: for each id, personless ones before and after its link, launched in a varying order. */
function roundOf(round: number): CaptureEvent[][] {
  const batches: CaptureEvent[][] = [];
  for (let i = 0; i < IDS; i++) {
    const anon = `anon-${round}-${i}`;
    const user = `user-${round}-${i}`;
    const early = views(anon, 'a', 3);
    const link = [linkOf(i, anon, user)];
    const late = views(anon, 'b', 2);
    // A batch of two visitors too: its ids are held together.
    const pair = [...views(anon, 'c', 1), ...views(`lone-${round}-${i}`, 'c', 1)];
    const orders = [
      [early, link, late, pair],
      [link, early, pair, late],
      [pair, late, link, early],
    ];
    batches.push(...orders[(round + i) % orders.length]);
  }
  return batches;
}

test('personless events racing the link of their id all end with the person', async () => {
  const tenant = await makeTenant(ctx.deps.db);
  const teamId = tenant.project.id;
  // On PostgreSQL, one connection per batch so the batches of a round really run at the same time.
  const width = IDS * 4;
  const wide = ctx.database.connection ? await openPostgres(ctx.database.connection, width) : null;
  try {
    const deps: Deps = { ...ctx.deps, db: wide?.db ?? ctx.deps.db };
    const rounds = Array.from({ length: ROUNDS }, (_, round) => roundOf(round));
    for (const [round, batches] of rounds.entries()) {
      const results = await Promise.allSettled(
        batches.map((batch) => ingestEvents(deps, deps.db, tenant.project, batch)),
      );
      assert.deepEqual(
        results.filter((result) => result.status === 'rejected'),
        [],
        `round ${round}`,
      );
    }
    const db = ctx.deps.db;
    const events = await db
      .selectFrom('events')
      .select(['distinct_id', 'person_id'])
      .where('team_id', '=', teamId)
      .where('distinct_id', 'like', 'anon-%')
      .execute();
    const sent = rounds.flat(2).filter((event) => event.distinct_id.startsWith('anon-')).length;
    assert.equal(events.length, sent, 'every event stored once');
    const ids = await db
      .selectFrom('person_distinct_ids')
      .select(['distinct_id', 'person_id'])
      .where('team_id', '=', teamId)
      .execute();
    const personOf = new Map(ids.map((row) => [row.distinct_id, row.person_id]));
    const unlinked = events.filter(
      (event) => event.person_id === null || event.person_id !== personOf.get(event.distinct_id),
    );
    assert.deepEqual(unlinked, [], 'every event of a linked id has its person');
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < IDS; i++) {
        const anon = `anon-${round}-${i}`;
        assert.ok(personOf.get(anon), `${anon} has a person`);
        if (i % 4 !== 3)
          assert.equal(personOf.get(anon), personOf.get(`user-${round}-${i}`), `${anon} is beside its user`);
        // The visitor that was never linked stays held by its placeholder, its event without a person.
        assert.equal(personOf.get(`lone-${round}-${i}`), null);
      }
    }
  } finally {
    await wide?.close();
  }
});
