// Migration 0007 on a database that already holds personless events: those of ids with a person
// now are linked to it, the others get the placeholder capture would have left.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Migrator } from 'kysely';
import { openPGlite } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { makeTenant } from '../helpers/factories.ts';

test('0007 links stored personless events and leaves placeholders for the ids without a person', async () => {
  const handle = await openPGlite({ dataDir: null });
  try {
    const db = handle.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    const { error } = await migrator.migrateTo('0006_analytics');
    assert.equal(error, undefined);
    const tenant = await makeTenant(db);
    const teamId = tenant.project.id;
    const person = await db
      .insertInto('persons')
      .values({ team_id: teamId, uuid: crypto.randomUUID(), properties: '{}', created_at: new Date() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .insertInto('person_distinct_ids')
      .values({ team_id: teamId, distinct_id: 'known', person_id: person.id })
      .execute();
    const event = (distinctId: string, personId: number | null) => ({
      team_id: teamId,
      uuid: crypto.randomUUID(),
      event: '$pageview',
      distinct_id: distinctId,
      person_id: personId,
      properties: '{}',
      person_properties: '{}',
      timestamp: new Date('2024-01-01T00:00:00Z'),
    });
    await db
      .insertInto('events')
      // The schema of 0006, before events had a person_key (0018).
      .values([
        event('known', null),
        event('known', person.id),
        event('stranger', null),
        event('stranger', null),
      ] as never)
      .execute();

    const migrated = await migrator.migrateTo('0007_personless_ids');
    assert.equal(migrated.error, undefined);
    assert.deepEqual(
      migrated.results?.map((result) => result.migrationName),
      ['0007_personless_ids'],
    );
    const events = await db
      .selectFrom('events')
      .select(['distinct_id', 'person_id'])
      .where('team_id', '=', teamId)
      .orderBy('id')
      .execute();
    assert.deepEqual(
      events.map((row) => row.person_id),
      [person.id, person.id, null, null],
    );
    const ids = await db
      .selectFrom('person_distinct_ids')
      .select(['distinct_id', 'person_id'])
      .where('team_id', '=', teamId)
      .orderBy('distinct_id')
      .execute();
    assert.deepEqual(ids, [
      { distinct_id: 'known', person_id: person.id },
      { distinct_id: 'stranger', person_id: null },
    ]);
  } finally {
    await handle.close();
  }
});
