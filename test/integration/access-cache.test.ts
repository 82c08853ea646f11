// Every server keeps what access checks read in memory; a change to it must reach all of them. Two
// servers on one database, each having served (and kept) a key before it is revoked, its member
// removed or demoted, its user deactivated: both refuse it within 1 s, through the server that made
// the change and the other alike, and through a change made in SQL by neither. On PostgreSQL
// (TEST_DATABASE_URL) these are two real processes, and the listening connections are killed once
// to see that the servers neither serve stale access meanwhile nor stop listening; on PGlite two
// apps share one handle (the same process: what the single-process PGlite server has), and the feed
// is marked down by hand.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { ChangeFeed } from '../../src/db/changes.ts';
import type { Db } from '../../src/db/database.ts';
import type { App } from '../../src/http/route-module.ts';
import { createLogger } from '../../src/log.ts';
import { insertApiKey } from '../../src/modules/api-keys/api-keys.repository.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import {
  bearer,
  makeMember,
  makeProject,
  makeTenant,
  makeTenantMember,
  makeUser,
  type Tenant,
} from '../helpers/factories.ts';
import {
  createStressDatabase,
  startServerProcess,
  type ServerProcess,
  type StressDatabase,
} from '../stress/server-process.ts';

const PROMISE_MS = 1000;

interface Probe {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}
type Send = (probe: Probe) => Promise<number>;

const viaFetch =
  (base: string): Send =>
  async ({ method, url, headers, body }) => {
    const res = await fetch(base + url, {
      method,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    await res.arrayBuffer();
    return res.status;
  };
const viaInject =
  (app: App): Send =>
  async ({ method, url, headers, body }) =>
    (await app.inject({ method, url, headers, payload: body as object | undefined })).statusCode;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('access kept in memory, changed everywhere', () => {
  let servers: Send[] = [];
  let db: Db;
  let tenant: Tenant;
  let kind: 'pglite' | 'postgres';
  let stress: StressDatabase | null = null;
  let processes: ServerProcess[] = [];
  let shared: TestDatabase | null = null;
  let apps: App[] = [];

  before(async () => {
    if (process.env.TEST_DATABASE_URL) {
      kind = 'postgres';
      stress = await createStressDatabase();
      db = (await stress.open()).db;
      processes = await Promise.all([startServerProcess(stress), startServerProcess(stress)]);
      servers = processes.map((p) => viaFetch(p.url));
    } else {
      kind = 'pglite';
      shared = await createTestDatabase();
      db = shared.db;
      const deps = {
        db,
        changes: shared.changes,
        config: defaultConfig({ rateLimit: false }),
        clock: { now: () => new Date() },
        log: createLogger('silent'),
      };
      apps = [await buildApp(deps), await buildApp(deps)];
      servers = apps.map(viaInject);
    }
    tenant = await makeTenant(db);
  });
  after(async () => {
    for (const p of processes) await p.stop();
    for (const app of apps) await app.close();
    await stress?.drop();
    await shared?.close();
  });

  /** Both servers answer `allowed` (twice, so the second comes from what they kept). */
  async function allowedEverywhere(probe: Probe, allowed: number) {
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(
        await Promise.all(servers.map((send) => send(probe))),
        servers.map(() => allowed),
        `${probe.method} ${probe.url} allowed before the change`,
      );
    }
  }

  /** Milliseconds until each server answered `refused`, asked every 20 ms; null past the promise. */
  async function refusedEverywhere(probe: Probe, refused: number) {
    const started = performance.now();
    const waits = await Promise.all(
      servers.map(async (send) => {
        for (;;) {
          const status = await send(probe);
          const waited = performance.now() - started;
          if (status === refused) return waited;
          if (waited > PROMISE_MS) return null;
          await pause(20);
        }
      }),
    );
    assert.ok(
      waits.every((wait) => wait !== null),
      `${probe.method} ${probe.url}: refused (${refused}) by every server within ${PROMISE_MS} ms, waited ${JSON.stringify(waits)}`,
    );
  }

  const projectProbe = (headers: Record<string, string>): Probe => ({
    method: 'GET',
    url: `/api/projects/${tenant.project.id}/`,
    headers,
  });
  const membersProbe = (headers: Record<string, string>): Probe => ({
    method: 'GET',
    url: `/api/organizations/${tenant.organization.id}/members/`,
    headers,
  });

  it('a revoked key is refused by every server, whichever server revoked it', async () => {
    for (const through of [0, 1]) {
      const member = await makeUser(db);
      await makeMember(db, tenant.organization, member, 1);
      const revoked = await insertApiKey(db, { userId: member.id, label: 'revoked', scopes: ['*'] }, new Date());
      const other = await insertApiKey(db, { userId: member.id, label: 'other', scopes: ['*'] }, new Date());
      const headers = bearer(revoked.value);
      await allowedEverywhere(projectProbe(headers), 200);
      await allowedEverywhere(membersProbe(headers), 200);
      assert.equal(
        await servers[through]({
          method: 'DELETE',
          url: `/api/personal_api_keys/${revoked.row.id}/`,
          headers: bearer(other.value),
        }),
        204,
      );
      await refusedEverywhere(projectProbe(headers), 401);
      await refusedEverywhere(membersProbe(headers), 401);
    }
  });

  it('a removed member is refused by every server', async () => {
    const member = await makeTenantMember(db, tenant, 1);
    await allowedEverywhere(projectProbe(member.headers), 200);
    await allowedEverywhere({ method: 'GET', url: '/api/projects/@current/', headers: member.headers }, 200);
    assert.equal(
      await servers[0]({
        method: 'DELETE',
        url: `/api/organizations/${tenant.organization.id}/members/${member.user.uuid}/`,
        headers: tenant.headers,
      }),
      204,
    );
    await refusedEverywhere(projectProbe(member.headers), 403);
    await refusedEverywhere(membersProbe(member.headers), 403);
    // Its `@current` organization is gone with the membership.
    await refusedEverywhere({ method: 'GET', url: '/api/projects/@current/', headers: member.headers }, 404);
  });

  it('a demoted admin is refused admin writes by every server', async () => {
    const admin = await makeTenantMember(db, tenant, 8);
    // A body missing its e-mail: past the access check it is a 400, refused there a 403.
    const write: Probe = {
      method: 'POST',
      url: `/api/organizations/${tenant.organization.id}/members/`,
      headers: admin.headers,
      body: {},
    };
    await allowedEverywhere(write, 400);
    assert.equal(
      await servers[1]({
        method: 'PATCH',
        url: `/api/organizations/${tenant.organization.id}/members/${admin.user.uuid}/`,
        headers: tenant.headers,
        body: { level: 1 },
      }),
      200,
    );
    await refusedEverywhere(write, 403);
    await allowedEverywhere(membersProbe(admin.headers), 200);
  });

  it('a user deactivated in SQL, by neither server, is refused by both', async () => {
    const member = await makeTenantMember(db, tenant, 1);
    await allowedEverywhere(projectProbe(member.headers), 200);
    await db.updateTable('users').set({ is_active: false }).where('id', '=', member.user.id).execute();
    await refusedEverywhere(projectProbe(member.headers), 401);
  });

  it('a deleted project is not found on either server', async () => {
    const member = await makeTenantMember(db, tenant, 1);
    const project = await makeProject(db, tenant.organization, 'Doomed');
    const probe: Probe = { method: 'GET', url: `/api/projects/${project.id}/`, headers: member.headers };
    await allowedEverywhere(probe, 200);
    await sql`delete from teams where id = ${project.id}`.execute(db);
    await refusedEverywhere(probe, 404);
  });

  it('keeps no stale access while its listening connection is down, and listens again', async (t) => {
    if (kind !== 'postgres') {
      t.diagnostic(
        'PGlite has no listening connection to lose: the feed is marked down by hand, and the change it misses made with its trigger off',
      );
      const feed = shared?.changes;
      assert.ok(feed instanceof ChangeFeed);
      const member = await makeTenantMember(db, tenant, 1);
      await allowedEverywhere(projectProbe(member.headers), 200);
      feed.setLive(false);
      await sql`alter table users disable trigger users_access_changed`.execute(db);
      try {
        await sql`update users set is_active = false where id = ${member.user.id}`.execute(db);
        assert.deepEqual(await Promise.all(servers.map((send) => send(projectProbe(member.headers)))), [401, 401]);
      } finally {
        await sql`alter table users enable trigger users_access_changed`.execute(db);
        feed.setLive(true);
      }
      const again = await makeTenantMember(db, tenant, 1);
      await allowedEverywhere(projectProbe(again.headers), 200);
      await sql`update users set is_active = false where id = ${again.user.id}`.execute(db);
      await refusedEverywhere(projectProbe(again.headers), 401);
      return;
    }
    const listeners = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = 'herd access listener'`.execute(
          db,
        )
      ).rows[0].n;
    assert.equal(await listeners(), 2);
    const first = await makeTenantMember(db, tenant, 1);
    await allowedEverywhere(projectProbe(first.headers), 200);
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'herd access listener'`.execute(
      db,
    );
    await db.updateTable('users').set({ is_active: false }).where('id', '=', first.user.id).execute();
    await refusedEverywhere(projectProbe(first.headers), 401);

    const deadline = performance.now() + 30_000;
    while ((await listeners()) < 2 && performance.now() < deadline) await pause(50);
    assert.equal(await listeners(), 2, 'both servers listen again');
    const second = await makeTenantMember(db, tenant, 1);
    await allowedEverywhere(projectProbe(second.headers), 200);
    await db.updateTable('users').set({ is_active: false }).where('id', '=', second.user.id).execute();
    await refusedEverywhere(projectProbe(second.headers), 401);
  });
});
