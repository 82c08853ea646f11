// Migration 0017 on a database that already holds events and persons: the definitions are
// backfilled from them (names from every event, keys and types from the newest events of each
// name and the newest persons of each project).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { openPGlite } from '../../src/db/database.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { makePerson, makeTenant } from '../helpers/factories.ts';

test('0017 backfills definitions from the stored events and persons', async () => {
  const handle = await openPGlite({ dataDir: null });
  try {
    const db = handle.db;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    assert.equal((await migrator.migrateTo('0011_events_page')).error, undefined);
    const tenant = await makeTenant(db);
    const other = await makeTenant(db);
    const stored: [number, string, object, string][] = [
      [tenant.project.id, '$pageview', { $current_url: '/', n: null }, '2026-01-01T00:00:00Z'],
      [tenant.project.id, '$pageview', { n: 4, when: '2026-01-01' }, '2026-01-03T00:00:00Z'],
      [tenant.project.id, 'signed_up', { plan: 'pro', ok: true }, '2026-01-02T00:00:00Z'],
      [other.project.id, 'theirs', { secret: 'x' }, '2026-01-02T00:00:00Z'],
    ];
    for (const [teamId, event, properties, timestamp] of stored) {
      await sql`insert into events (team_id, uuid, event, distinct_id, properties, timestamp)
        values (${teamId}, ${crypto.randomUUID()}, ${event}, 'visitor', ${JSON.stringify(properties)}, ${timestamp})`.execute(
        db,
      );
    }
    await makePerson(db, tenant.project.id, { properties: { email: 'a@example.com', age: 3 }, distinctIds: ['a'] });

    assert.equal((await migrator.migrateTo('0017_definitions')).error, undefined);
    const events = await sql<{ name: string; created_at: Date; last_seen_at: Date }>`
      select name, created_at, last_seen_at from event_definitions where team_id = ${tenant.project.id} order by name`.execute(
      db,
    );
    assert.deepEqual(
      events.rows.map((row) => [row.name, row.created_at.toISOString(), row.last_seen_at.toISOString()]),
      [
        ['$pageview', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z'],
        ['signed_up', '2026-01-02T00:00:00.000Z', '2026-01-02T00:00:00.000Z'],
      ],
    );
    const properties = await sql<{ kind: number; name: string; property_type: string | null }>`
      select kind, name, property_type from property_definitions where team_id = ${tenant.project.id} order by kind, name`.execute(
      db,
    );
    assert.deepEqual(
      properties.rows.map((row) => [row.kind, row.name, row.property_type]),
      [
        [1, '$current_url', 'String'],
        [1, 'n', 'Numeric'],
        [1, 'ok', 'Boolean'],
        [1, 'plan', 'String'],
        [1, 'when', 'DateTime'],
        [2, 'age', 'Numeric'],
        [2, 'email', 'String'],
      ],
    );
    const pairs = await sql<{ event: string; property: string }>`
      select event, property from event_properties where team_id = ${tenant.project.id} order by event, property`.execute(
      db,
    );
    assert.deepEqual(
      pairs.rows.map((row) => `${row.event}.${row.property}`),
      ['$pageview.$current_url', '$pageview.n', '$pageview.when', 'signed_up.ok', 'signed_up.plan'],
    );
    const theirs = await sql<{
      name: string;
    }>`select name from property_definitions where team_id = ${other.project.id}`.execute(db);
    assert.deepEqual(
      theirs.rows.map((row) => row.name),
      ['secret'],
    );
  } finally {
    await handle.close();
  }
});
