// Two servers on one database: concurrent captures over shared distinct ids, crossing merges and
// role edits through both, two deletion runners at once. No lost update, no deadlock surfacing as
// an error (a 500), exactly one runner per batch. On PostgreSQL (TEST_DATABASE_URL) these are two
// real processes; PGlite cannot be shared between processes, so there two apps share one handle.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import type { Deps } from '../../src/deps.ts';
import type { App } from '../../src/http/route-module.ts';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { makeMember, makeTenant, makeUser, type Tenant } from '../helpers/factories.ts';
import {
  createStressDatabase,
  startServerProcess,
  STRESS,
  type ServerProcess,
  type StressDatabase,
} from './server-process.ts';

const DISTINCT_IDS = STRESS ? 40 : 6;
const EVENTS_EACH = STRESS ? 30 : 6;
const MEMBERS = STRESS ? 30 : 6;

interface Answer {
  status: number;
  body: string;
}
type Send = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<Answer>;

const viaFetch =
  (base: string): Send =>
  async (method, url, body, headers = {}) => {
    const res = await fetch(base + url, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, body: await res.text() };
  };
const viaInject =
  (app: App): Send =>
  async (method, url, body, headers = {}) => {
    const res = await app.inject({ method: method as 'GET', url, headers, payload: body as object });
    return { status: res.statusCode, body: res.body };
  };

describe('two servers on one database', () => {
  let kind: 'pglite' | 'postgres';
  let servers: Send[] = [];
  let db: Db;
  let tenant: Tenant;
  let stress: StressDatabase | null = null;
  let processes: ServerProcess[] = [];
  let shared: TestDatabase | null = null;
  let apps: App[] = [];
  const errors: string[] = [];

  const send = async (server: number, method: string, url: string, body?: unknown): Promise<Answer> => {
    const answer = await servers[server](method, url, body, url.startsWith('/api/') ? tenant.headers : {});
    if (answer.status >= 500)
      errors.push(`server ${server}: ${method} ${url} → ${answer.status} ${answer.body.slice(0, 200)}`);
    return answer;
  };
  const capture = (server: number, events: Record<string, unknown>[]) =>
    send(server, 'POST', '/batch/', {
      api_key: tenant.project.api_token,
      batch: events.map((e) => ({ uuid: crypto.randomUUID(), timestamp: new Date().toISOString(), ...e })),
    });
  const personOf = async (distinctId: string) =>
    db
      .selectFrom('person_distinct_ids')
      .innerJoin('persons', (join) =>
        join
          .onRef('persons.team_id', '=', 'person_distinct_ids.team_id')
          .onRef('persons.id', '=', 'person_distinct_ids.person_id'),
      )
      .select(['persons.id', 'persons.properties'])
      .where('person_distinct_ids.team_id', '=', tenant.project.id)
      .where('distinct_id', '=', distinctId)
      .execute();

  before(async () => {
    if (process.env.TEST_DATABASE_URL) {
      kind = 'postgres';
      stress = await createStressDatabase();
      db = (await stress.open()).db;
      tenant = await makeTenant(db);
      processes = await Promise.all([startServerProcess(stress), startServerProcess(stress)]);
      servers = processes.map((p) => viaFetch(p.url));
    } else {
      kind = 'pglite';
      shared = await createTestDatabase();
      db = shared.db;
      tenant = await makeTenant(db);
      const deps = (): Deps => ({
        db,
        config: defaultConfig(),
        clock: { now: () => new Date() },
        log: createLogger('silent'),
      });
      apps = [await buildApp(deps()), await buildApp(deps())];
      servers = apps.map(viaInject);
    }
  });
  after(async () => {
    for (const p of processes) await p.stop();
    for (const app of apps) await app.close();
    await stress?.drop();
    await shared?.close();
  });

  it('loses no $set when both servers capture for the same distinct ids at once', { timeout: 300_000 }, async (t) => {
    const ids = Array.from({ length: DISTINCT_IDS }, (_, i) => `shared-${i}`);
    const work = ids.flatMap((id) =>
      [0, 1].flatMap((server) =>
        Array.from({ length: EVENTS_EACH }, (_, n) => ({ server, id, key: `s${server}_${n}` })),
      ),
    );
    // Shuffled so both servers interleave on the same persons.
    work.sort(() => Math.random() - 0.5);
    const answers = await Promise.all(
      work.map((w) =>
        capture(w.server, [{ event: 'shared', distinct_id: w.id, properties: { $set: { [w.key]: w.id } } }]),
      ),
    );
    const refused = answers.filter((a) => a.status !== 200);
    assert.deepEqual(refused, [], 'every capture acknowledged');
    for (const id of ids) {
      const rows = await personOf(id);
      assert.equal(rows.length, 1, `${id} belongs to exactly one person`);
      const props = rows[0].properties as Record<string, unknown>;
      const missing = work.filter((w) => w.id === id && props[w.key] !== id).map((w) => w.key);
      assert.deepEqual(missing, [], `${id} kept every $set`);
    }
    const persons = await db
      .selectFrom('persons')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', tenant.project.id)
      .executeTakeFirstOrThrow();
    t.diagnostic(
      `two servers (${kind}): ${work.length} concurrent captures over ${ids.length} shared distinct ids → ${Number(persons.n)} persons`,
    );
    assert.equal(Number(persons.n), ids.length, 'one person per distinct id, no duplicate created by the race');
  });

  it(
    'merges crossing in both directions through both servers end in one person each, without deadlock',
    { timeout: 300_000 },
    async () => {
      const pairs = Array.from({ length: DISTINCT_IDS }, (_, i) => [`left-${i}`, `right-${i}`] as const);
      for (const [left, right] of pairs) {
        await capture(0, [{ event: 'seen', distinct_id: left, properties: { $set: { left: true } } }]);
        await capture(1, [{ event: 'seen', distinct_id: right, properties: { $set: { right: true } } }]);
      }
      await Promise.all(
        pairs.flatMap(([left, right]) => [
          capture(0, [
            { event: '$identify', distinct_id: left, properties: { $anon_distinct_id: right, $set: { via: 0 } } },
          ]),
          capture(1, [
            { event: '$identify', distinct_id: right, properties: { $anon_distinct_id: left, $set: { via: 1 } } },
          ]),
          capture(0, [{ event: '$create_alias', distinct_id: right, properties: { alias: left } }]),
        ]),
      );
      for (const [left, right] of pairs) {
        const [a] = await personOf(left);
        const [b] = await personOf(right);
        assert.ok(a && b, `${left} and ${right} still resolve to persons`);
        assert.equal(a.id, b.id, `${left} and ${right} are one person`);
        const props = a.properties as Record<string, unknown>;
        assert.equal(props.left, true);
        assert.equal(props.right, true);
      }
    },
  );

  it(
    'applies role edits from both servers: every membership kept, duplicates refused cleanly',
    { timeout: 300_000 },
    async () => {
      const org = `/api/organizations/${tenant.organization.id}`;
      const created = await send(0, 'POST', `${org}/roles/`, {
        name: `Shared ${crypto.randomBytes(3).toString('hex')}`,
      });
      assert.equal(created.status, 201, created.body);
      const role = JSON.parse(created.body);
      const members = await Promise.all(
        Array.from({ length: MEMBERS }, async () => {
          const user = await makeUser(db);
          await makeMember(db, tenant.organization, user, 1);
          return user;
        }),
      );
      // Each member added through both servers at once: exactly one 201, the other a 400.
      const adds = await Promise.all(
        members.flatMap((user) =>
          [0, 1].map((server) =>
            send(server, 'POST', `${org}/roles/${role.id}/role_memberships/`, { user_uuid: user.uuid }),
          ),
        ),
      );
      const statuses = adds.map((a) => a.status).sort();
      assert.equal(statuses.filter((s) => s === 201).length, MEMBERS, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 400).length, MEMBERS, JSON.stringify(statuses));
      const names = Array.from({ length: 10 }, (_, i) => `Renamed ${i} ${crypto.randomBytes(2).toString('hex')}`);
      const renames = await Promise.all(
        names.map((name, i) => send(i % 2, 'PATCH', `${org}/roles/${role.id}/`, { name })),
      );
      assert.ok(
        renames.every((r) => r.status === 200),
        JSON.stringify(renames.map((r) => r.status)),
      );
      const dupName = `Race ${crypto.randomBytes(3).toString('hex')}`;
      const racing = await Promise.all(
        [0, 1, 0, 1].map((server) => send(server, 'POST', `${org}/roles/`, { name: dupName })),
      );
      assert.equal(racing.filter((r) => r.status === 201).length, 1, JSON.stringify(racing));
      assert.ok(
        racing.every((r) => r.status === 201 || r.status === 400),
        JSON.stringify(racing),
      );
      const final = await send(1, 'GET', `${org}/roles/${role.id}/`);
      const body = JSON.parse(final.body);
      assert.ok(names.includes(body.name), 'the final name is one of those written');
      assert.equal(body.members.length, MEMBERS, 'every membership kept');
    },
  );

  it("keeps every key when both servers PATCH one person's properties at once", { timeout: 300_000 }, async () => {
    await capture(0, [{ event: 'patched', distinct_id: 'patched-person', properties: { $set: { base: true } } }]);
    const [person] = await personOf('patched-person');
    const url = `/api/projects/${tenant.project.id}/persons/${person.id}/`;
    const keys = Array.from({ length: EVENTS_EACH * 2 }, (_, i) => `patch_${i}`);
    const answers = await Promise.all(keys.map((key, i) => send(i % 2, 'PATCH', url, { properties: { [key]: i } })));
    assert.ok(
      answers.every((a) => a.status === 200),
      JSON.stringify(answers.map((a) => a.status)),
    );
    const [after] = await personOf('patched-person');
    const props = after.properties as Record<string, unknown>;
    const missing = keys.filter((key, i) => props[key] !== i);
    assert.deepEqual(missing, [], 'no PATCH lost to another');
    assert.equal(props.base, true);
  });

  it('runs a deletion batch exactly once when two runners start together', { timeout: 300_000 }, async (t) => {
    const victims = Array.from(
      { length: STRESS ? 40 : 4 },
      (_, i) => `doomed-${i}-${crypto.randomBytes(2).toString('hex')}`,
    );
    for (const id of victims)
      await capture(0, [
        { event: 'doomed', distinct_id: id },
        { event: 'doomed again', distinct_id: id },
      ]);
    const persons = await Promise.all(victims.map(async (id) => (await personOf(id))[0]));
    const deletes = await Promise.all(
      persons.map((p, i) =>
        send(i % 2, 'DELETE', `/api/projects/${tenant.project.id}/persons/${p.id}/?delete_events=true`),
      ),
    );
    assert.ok(
      deletes.every((d) => d.status === 204),
      JSON.stringify(deletes),
    );
    const eventsBefore = await db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('team_id', '=', tenant.project.id)
      .where('distinct_id', 'in', victims)
      .executeTakeFirstOrThrow();
    assert.equal(Number(eventsBefore.n), victims.length * 2);

    const results = kind === 'postgres' ? await runTwoCliRunners(stress!) : await runTwoInProcess(db);
    const processed = results.reduce((sum, r) => sum + r.processed, 0);
    const deleted = results.reduce((sum, r) => sum + r.events_deleted, 0);
    t.diagnostic(`deletion runners (${kind}): ${JSON.stringify(results)}`);
    assert.equal(processed, victims.length, 'each task processed by exactly one runner');
    assert.equal(deleted, victims.length * 2, 'each event deleted once');
    const pending = await db
      .selectFrom('deletion_tasks')
      .select('id')
      .where('team_id', '=', tenant.project.id)
      .where('delete_verified_at', 'is', null)
      .execute();
    assert.equal(pending.length, 0);
  });

  it('surfaced no deadlock or other fault as a 500', () => {
    assert.deepEqual(errors, []);
  });
});

const run = promisify(execFile);

async function runTwoCliRunners(database: StressDatabase) {
  const cli = path.resolve(import.meta.dirname, '../../src/cli/main.ts');
  const env = { ...process.env, ...database.env, DELETION_SCHEDULE: 'off', LOG_LEVEL: 'warn' };
  const outputs = await Promise.all(
    [0, 1].map(() => run(process.execPath, [cli, 'deletions', 'run', '--json'], { env })),
  );
  return outputs.map((o) => JSON.parse(o.stdout) as { processed: number; events_deleted: number });
}

async function runTwoInProcess(db: Db) {
  const deps = (): Deps => ({
    db,
    config: defaultConfig(),
    clock: { now: () => new Date() },
    log: createLogger('silent'),
  });
  return Promise.all([runDeletionBatch(deps()), runDeletionBatch(deps())]);
}
