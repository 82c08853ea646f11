// `herd serve` as a process: it listens, answers, and on SIGTERM stops accepting, finishes what is
// in flight, closes the database and exits 0. Several servers and migrators may share one PostgreSQL.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openPGlite, openPostgres } from '../../src/db/database.ts';
import { MIGRATION_LOCK, migrateDatabase, migrateToLatest } from '../../src/db/migrate.ts';
import { migrations } from '../../src/db/migrations/index.ts';
import { createEmptyDatabase, runHerd, serveHerd as serve, stopHerd as stop } from './herd-process.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe(`herd serve (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  before(async () => {
    if (onPostgres) {
      const database = await createEmptyDatabase();
      env = { DATABASE_URL: database.url };
      cleanup = database.drop;
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-serve-'));
      env = { DATA_DIR: dir };
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  after(() => cleanup());

  it('serves the data the CLI wrote, and exits 0 on SIGTERM', async () => {
    const boot = await runHerd(['bootstrap', '--email', 'serve@example.com', '--json'], env);
    assert.equal(boot.code, 0, boot.stderr);
    const { personal_api_key: key, project_id: projectId } = JSON.parse(boot.stdout);

    const server = await serve(env);
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal((await fetch(`${server.url}/_health`)).status, 200);
    assert.equal((await fetch(`${server.url}/_ready`)).status, 200);
    const projects = await fetch(`${server.url}/api/projects/`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(projects.status, 200);
    const listed = (await projects.json()) as { results: { id: number }[] };
    assert.equal(listed.results[0].id, projectId);

    // A request in flight when the signal arrives (headers sent, body still coming) gets its answer.
    const request = http.request(`${server.url}/api/projects/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      request.on('error', reject);
    });
    request.write('{"name": "in fl');
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 200));
    request.end('ight"}');
    const response = await answered;
    assert.equal(response.status, 201, response.body);
    assert.equal(JSON.parse(response.body).name, 'in flight');
    const code = await server.exited;
    assert.equal(code, 0, server.stderr());
    assert.match(server.stderr(), /"msg":"shutting down"/);
    await assert.rejects(fetch(`${server.url}/_health`), 'no longer listening');
  });

  it('logs JSON lines with a request id and never the key', async () => {
    const server = await serve(env);
    await fetch(`${server.url}/api/projects/`, {
      headers: { authorization: 'Bearer phx_secret_value_that_must_not_leak', 'x-request-id': 'trace-42' },
    });
    assert.equal(await stop(server), 0);
    const lines = server
      .stderr()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
    assert.ok(
      lines.some((line) => line.reqId === 'trace-42'),
      'the request id is in the log',
    );
    assert.ok(!server.stderr().includes('phx_secret_value_that_must_not_leak'));
  });
});

describe('migrations at once on one database', () => {
  if (onPostgres) {
    it('two `herd migrate` and two servers at once on one PostgreSQL all succeed', async () => {
      const database = await createEmptyDatabase();
      try {
        const env = { DATABASE_URL: database.url };
        const [first, second] = await Promise.all([
          runHerd(['migrate', '--json'], env),
          runHerd(['migrate', '--json'], env),
        ]);
        assert.equal(first.code, 0, first.stderr);
        assert.equal(second.code, 0, second.stderr);
        const applied = [...JSON.parse(first.stdout).applied, ...JSON.parse(second.stdout).applied].sort();
        assert.deepEqual(applied, Object.keys(migrations).sort(), 'each migration ran exactly once');

        const fresh = await createEmptyDatabase();
        try {
          const servers = await Promise.all([serve({ DATABASE_URL: fresh.url }), serve({ DATABASE_URL: fresh.url })]);
          for (const server of servers) assert.equal((await fetch(`${server.url}/_ready`)).status, 200);
          assert.deepEqual(await Promise.all(servers.map((server) => stop(server))), [0, 0]);
          const handle = await openPostgres(fresh.url, 1);
          try {
            const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
              handle.db,
            );
            assert.deepEqual(
              rows.map((row) => row.name),
              Object.keys(migrations).sort(),
            );
          } finally {
            await handle.close();
          }
        } finally {
          await fresh.drop();
        }
      } finally {
        await database.drop();
      }
    });

    // The flake this prevents: Kysely creates `kysely_migration` before taking its own lock, and a
    // migrator checking for it while the other's `create table` committed failed with "relation
    // \"public.kysely_migration\" does not exist". Here the lock is held, so no race is needed.
    it('a migrator waits for the migration lock another holds, and creates nothing before it has it', async () => {
      const database = await createEmptyDatabase();
      const holder = await openPostgres(database.url, 1);
      const migrator = await openPostgres(database.url, 2);
      try {
        const { started } = await holder.db.connection().execute(async (conn) => {
          await sql`select pg_advisory_lock(${MIGRATION_LOCK}::bigint)`.execute(conn);
          try {
            const started = migrateDatabase(migrator.db);
            let settled = false;
            started.then(
              () => (settled = true),
              () => (settled = true),
            );
            for (;;) {
              const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_locks
                where locktype = 'advisory' and objid = ${MIGRATION_LOCK} and not granted
                  and database = (select oid from pg_database where datname = current_database())`.execute(conn);
              if (rows[0].waiting > 0) break;
              assert.ok(!settled, 'the migrator finished without waiting for the lock');
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            const { rows } = await sql<{
              present: boolean;
            }>`select to_regclass('kysely_migration') is not null as present`.execute(conn);
            assert.equal(rows[0].present, false, 'nothing created while the lock is held');
            return { started };
          } finally {
            await sql`select pg_advisory_unlock(${MIGRATION_LOCK}::bigint)`.execute(conn);
          }
        });
        assert.deepEqual((await started).applied, Object.keys(migrations).sort());
      } finally {
        await Promise.all([holder.close(), migrator.close()]);
        await database.drop();
      }
    });
  } else {
    it('two migrators at once on one PGlite both succeed and apply each migration once', async () => {
      const handle = await openPGlite({ dataDir: null });
      try {
        const [first, second] = await Promise.all([migrateToLatest(handle.db), migrateToLatest(handle.db)]);
        assert.deepEqual([...first, ...second].sort(), Object.keys(migrations).sort());
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
          handle.db,
        );
        assert.deepEqual(
          rows.map((row) => row.name),
          Object.keys(migrations).sort(),
        );
      } finally {
        await handle.close();
      }
    });
  }
});
