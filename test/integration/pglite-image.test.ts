// A fresh embedded DATA_DIR starts as a copy of the prepared image (a migrated, closed database)
// instead of running initdb and every migration; without an image it falls back to both.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openPGlite } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { lockDataDir } from '../../src/db/data-dir-lock.ts';
import { preparedImage } from '../../src/db/pglite-image.ts';

const tables = async (db: Awaited<ReturnType<typeof openPGlite>>['db']) =>
  (
    await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = 'public' order by 1`.execute(
      db,
    )
  ).rows.map((row) => row.name);

describe('the prepared image of the embedded database', () => {
  let root: string;
  let image: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-image-'));
    image = path.join(root, 'cache', 'pglite-test');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('a fresh DATA_DIR is built once into the image, then starts migrated from a copy of it', async () => {
    const first = path.join(root, 'first');
    const handle = await openPGlite({ dataDir: first, fromImage: image });
    try {
      assert.deepEqual(await migrateToLatest(handle.db), [], 'every migration came with the image');
      assert.deepEqual(handle.fromImage, Object.keys(migrations), 'and the handle says so (herd migrate reports them)');
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db);
      assert.deepEqual(
        rows.map((row) => row.name),
        Object.keys(migrations),
      );
      await sql`create table written_after (id int)`.execute(handle.db);
    } finally {
      await handle.close();
    }
    assert.ok(fs.existsSync(path.join(image, 'PG_VERSION')), 'the image is in place');
    assert.equal(fs.existsSync(path.join(image, 'herd.lock')), false, 'without the lock of the process that built it');
    assert.deepEqual(fs.readdirSync(path.dirname(image)), ['pglite-test'], 'no staging directory left behind');

    let builds = 0;
    assert.equal(await preparedImage(async () => void builds++, image), image);
    assert.equal(builds, 0, 'an image in place is not built again');

    // A second fresh directory gets the image, not what the first one wrote since.
    const second = path.join(root, 'second');
    const again = await openPGlite({ dataDir: second, fromImage: image });
    try {
      assert.deepEqual(await migrateToLatest(again.db), []);
      assert.ok((await tables(again.db)).includes('persons'));
      assert.equal((await tables(again.db)).includes('written_after'), false);
    } finally {
      await again.close();
    }
  });

  it('a copy that fails fails the open and leaves the DATA_DIR fresh and unlocked', async () => {
    const dataDir = path.join(root, 'unwritable');
    fs.mkdirSync(dataDir);
    // A file where the image has a directory: the copy cannot go on.
    fs.writeFileSync(path.join(dataDir, 'base'), '');
    await assert.rejects(openPGlite({ dataDir, fromImage: image }), /base/);
    assert.equal(fs.existsSync(path.join(dataDir, 'PG_VERSION')), false, 'still a fresh DATA_DIR');
    lockDataDir(dataDir).release();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('an image that cannot be written: the fresh DATA_DIR is created and migrated in place', async () => {
    const blocked = path.join(root, 'not-a-directory');
    fs.writeFileSync(blocked, '');
    const dataDir = path.join(root, 'fallback');
    const handle = await openPGlite({ dataDir, fromImage: path.join(blocked, 'pglite-test') });
    try {
      assert.equal(handle.fromImage, undefined);
      assert.deepEqual(await migrateToLatest(handle.db), Object.keys(migrations), 'migrated here, from nothing');
    } finally {
      await handle.close();
    }
    assert.deepEqual(fs.readdirSync(root).sort(), ['cache', 'fallback', 'first', 'not-a-directory', 'second']);
  });
});
