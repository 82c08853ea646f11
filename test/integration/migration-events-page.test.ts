// Migration 0011 on a database that already holds events: each stored pageview and screen gets its
// page (cut to 400 characters), other events none, and the person index carries it.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { openPGlite } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { makeTenant } from '../helpers/factories.ts';

test('0011 gives stored pageviews and screens their page, and the person index carries it', async () => {
  const handle = await openPGlite({ dataDir: null });
  try {
    const db = handle.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    assert.equal((await migrator.migrateTo('0010_access_changes')).error, undefined);
    const tenant = await makeTenant(db);
    const long = `/${'a'.repeat(500)}`;
    const stored = [
      ['$pageview', { $current_url: '/pricing/' }],
      ['$pageview', { $current_url: long }],
      ['$screen', { $screen_name: 'Main' }],
      ['signup', { $current_url: '/signup' }],
      ['$pageview', {}],
    ] as const;
    for (const [i, [event, properties]] of stored.entries()) {
      await sql`insert into events (team_id, uuid, event, distinct_id, properties, timestamp)
        values (${tenant.project.id}, ${crypto.randomUUID()}, ${event}, 'visitor', ${JSON.stringify(properties)}, ${new Date(Date.UTC(2024, 0, 1, 0, i))})`.execute(
        db,
      );
    }

    const migrated = await migrator.migrateTo('0011_events_page');
    assert.equal(migrated.error, undefined);
    assert.deepEqual(
      migrated.results?.map((result) => result.migrationName),
      ['0011_events_page'],
    );
    const pages = await sql<{
      page: string | null;
    }>`select page from events where team_id = ${tenant.project.id} order by timestamp`.execute(db);
    assert.deepEqual(
      pages.rows.map((row) => row.page),
      ['/pricing/', long.slice(0, 400), 'Main', null, null],
    );
    const index = await sql<{
      definition: string;
    }>`select indexdef as definition from pg_indexes where indexname = 'events_person_order'`.execute(db);
    assert.match(index.rows[0]?.definition ?? '', /\(team_id, person_id, "timestamp", id\) INCLUDE \(event, page\)/);
  } finally {
    await handle.close();
  }
});
