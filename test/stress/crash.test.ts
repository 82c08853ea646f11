// Crash safety: a real server takes capture batches, is killed with SIGKILL mid-stream and
// restarted on the same data; every acknowledged batch is whole, no other batch is half there.
// Without HERD_STRESS: one kill cycle with few batches (a smoke run).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { defaultConfig } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import type { Deps } from '../../src/deps.ts';
import { runDeletionBatch } from '../../src/jobs/deletion-batch.ts';
import { createLogger } from '../../src/log.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';
import {
  createStressDatabase,
  postJson,
  serverCommand,
  startServerProcess,
  STRESS,
  type StressDatabase,
} from './server-process.ts';

const CYCLES = STRESS ? 5 : 1;
const WRITERS = STRESS ? 8 : 3;
const EVENTS_PER_BATCH = 20;
const VICTIM_GROUPS = STRESS ? 12 : 4;
const GROUP_SIZE = 25;
const CLI = path.resolve(import.meta.dirname, '../../src/cli/main.ts');

interface Batch {
  uuids: string[];
  acknowledged: boolean;
}

/** Writers stream batches until the server dies; each batch remembers whether it was answered 200. */
function streamBatches(url: string, token: string, batches: Batch[], stop: { now: boolean }) {
  const writer = async () => {
    while (!stop.now) {
      const batch: Batch = {
        uuids: Array.from({ length: EVENTS_PER_BATCH }, () => crypto.randomUUID()),
        acknowledged: false,
      };
      batches.push(batch);
      const distinct = `crash-${crypto.randomBytes(4).toString('hex')}`;
      const events = batch.uuids.map((uuid, i) => ({
        uuid,
        event: i === 0 ? '$identify' : 'crash test',
        distinct_id: distinct,
        timestamp: new Date().toISOString(),
        properties: { $set: { n: i }, seq: i },
      }));
      try {
        const res = await postJson(`${url}/batch/`, { api_key: token, batch: events });
        batch.acknowledged = res.status === 200;
        if (res.status !== 200 && res.status < 500)
          throw new Error(`capture refused a valid batch: ${res.status} ${res.body}`);
      } catch (error) {
        if (error instanceof Error && error.message.startsWith('capture refused')) throw error;
        return; // the connection died with the server: this batch is unacknowledged
      }
    }
  };
  return Promise.all(Array.from({ length: WRITERS }, writer));
}

describe('crash safety (kill -9)', () => {
  let database: StressDatabase;
  let tenant: Tenant;

  before(async () => {
    database = await createStressDatabase();
    const handle = await database.open();
    tenant = await makeTenant(handle.db);
    await handle.close();
  });
  after(() => database.drop());

  it(
    `keeps every acknowledged capture batch whole across ${CYCLES} SIGKILL cycle(s)`,
    { timeout: 600_000 },
    async (t) => {
      t.diagnostic(`server command: node ${serverCommand().join(' ')} on ${database.kind}`);
      const batches: Batch[] = [];
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const server = await startServerProcess(database);
        const stop = { now: false };
        const streaming = streamBatches(server.url, tenant.project.api_token, batches, stop);
        // Let some batches land, then pull the plug while others are in flight.
        const target = batches.length + WRITERS * (STRESS ? 10 : 2);
        const deadline = Date.now() + 30_000;
        while (batches.filter((b) => b.acknowledged).length < target - WRITERS && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 20));
        await new Promise((r) => setTimeout(r, crypto.randomInt(0, 40)));
        await server.kill9();
        stop.now = true;
        await streaming;
      }

      // Read straight after the last kill; the next test restarts a server on this data and writes.
      const handle = await database.open();
      try {
        const present = new Map<string, number>();
        const rows = await sql<{
          uuid: string;
        }>`select uuid::text as uuid from events where team_id = ${tenant.project.id}`.execute(handle.db);
        for (const row of rows.rows) present.set(row.uuid, (present.get(row.uuid) ?? 0) + 1);
        let acknowledged = 0;
        let lost = 0;
        let torn = 0;
        let duplicated = 0;
        for (const batch of batches) {
          const found = batch.uuids.filter((uuid) => present.has(uuid)).length;
          duplicated += batch.uuids.filter((uuid) => (present.get(uuid) ?? 0) > 1).length;
          if (batch.acknowledged) {
            acknowledged += 1;
            lost += batch.uuids.length - found;
          } else if (found !== 0 && found !== batch.uuids.length) {
            torn += 1;
          }
        }
        const unacknowledged = batches.length - acknowledged;
        t.diagnostic(
          `crash: ${CYCLES} kill -9 cycle(s) on ${database.kind}; ${batches.length} batches (${acknowledged} acknowledged, ${unacknowledged} in flight); acknowledged events lost ${lost}; half-stored batches ${torn}; duplicated events ${duplicated}`,
        );
        assert.ok(acknowledged > 0, 'some batches were acknowledged before the kill');
        assert.equal(lost, 0, 'no acknowledged event lost');
        assert.equal(torn, 0, 'no unacknowledged batch half stored');
        assert.equal(duplicated, 0, 'no event stored twice');
        // Persons stay consistent with their events: every stored event points at a person that exists.
        const dangling = await sql<{ n: number }>`
        select count(*)::int as n from events e where e.team_id = ${tenant.project.id} and e.person_id is not null
        and e.person_id not in (select p.id from persons p where p.team_id = ${tenant.project.id})`.execute(handle.db);
        assert.equal(Number(dangling.rows[0].n), 0, 'no event points at a missing person');
        const orphans = await sql<{ n: number }>`
        select count(*)::int as n from person_distinct_ids d where d.team_id = ${tenant.project.id} and d.person_id is not null
        and not exists (select 1 from persons p where p.team_id = d.team_id and p.id = d.person_id)`.execute(handle.db);
        assert.equal(Number(orphans.rows[0].n), 0, 'no distinct id points at a missing person');
      } finally {
        await handle.close();
      }
    },
  );
  it(
    'drains on SIGTERM under a capture stream: exit 0, every acknowledged batch stored, none torn',
    { timeout: 600_000 },
    async (t) => {
      // Info-level output, so a shutdown that hangs shows which requests never completed.
      const server = await startServerProcess(database, { LOG_LEVEL: 'info' });
      const batches: Batch[] = [];
      const stop = { now: false };
      const streaming = streamBatches(server.url, tenant.project.api_token, batches, stop);
      const deadline = Date.now() + 30_000;
      while (batches.filter((b) => b.acknowledged).length < WRITERS * 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      const code = await server.stop();
      stop.now = true;
      await streaming;
      assert.equal(code, 0, `SIGTERM exits 0 within 30 s; the server's last output: ${server.output().slice(-3000)}`);
      const handle = await database.open();
      try {
        let lost = 0;
        let torn = 0;
        for (const batch of batches) {
          const rows = await handle.db
            .selectFrom('events')
            .select('uuid')
            .where('team_id', '=', tenant.project.id)
            .where('uuid', 'in', batch.uuids)
            .execute();
          if (batch.acknowledged) lost += batch.uuids.length - rows.length;
          else if (rows.length !== 0 && rows.length !== batch.uuids.length) torn += 1;
        }
        const acknowledged = batches.filter((b) => b.acknowledged).length;
        t.diagnostic(
          `SIGTERM drain (${database.kind}): ${batches.length} batches, ${acknowledged} acknowledged, ${lost} acknowledged events lost, ${torn} torn`,
        );
        assert.equal(lost, 0);
        assert.equal(torn, 0);
      } finally {
        await handle.close();
      }
    },
  );

  // Filled by the bulk_delete test, used by the deletion-batch test.
  const victimDistinctIds: string[] = [];

  it(
    'keeps bulk_delete atomic across a SIGKILL: a group is deleted whole with its tasks, or not at all',
    { timeout: 600_000 },
    async (t) => {
      // A restart on the data of the last kill: it must come up and take writes again.
      const server = await startServerProcess(database);
      const groups = Array.from({ length: VICTIM_GROUPS }, (_, g) =>
        Array.from({ length: GROUP_SIZE }, (_, i) => `victim-${g}-${i}-${crypto.randomBytes(2).toString('hex')}`),
      );
      for (const group of groups) {
        const batch = group.flatMap((id) =>
          [0, 1, 2].map((n) => ({
            uuid: crypto.randomUUID(),
            event: `victim ${n}`,
            distinct_id: id,
            properties: { $set: { victim: true } },
          })),
        );
        const res = await postJson(`${server.url}/batch/`, { api_key: tenant.project.api_token, batch });
        assert.equal(res.status, 200, res.body);
      }
      const url = `${server.url}/api/projects/${tenant.project.id}/persons/bulk_delete/`;
      const acknowledged = new Set<number>();
      // Group 0 is deleted after the restart, so the deletion-batch test always has queued work.
      const inFlight = groups.map((group, g) =>
        g === 0
          ? undefined
          : postJson(url, { distinct_ids: group, delete_events: true }, tenant.headers).then(
              (res) => {
                if (res.status === 200) acknowledged.add(g);
                else if (res.status < 500) throw new Error(`bulk_delete refused: ${res.status} ${res.body}`);
              },
              () => undefined,
            ),
      );
      await new Promise((r) => setTimeout(r, crypto.randomInt(1, database.kind === 'postgres' ? 40 : 150)));
      await server.kill9();
      await Promise.all(inFlight);
      const restarted = await startServerProcess(database);
      const late = await postJson(
        `${restarted.url}/api/projects/${tenant.project.id}/persons/bulk_delete/`,
        { distinct_ids: groups[0], delete_events: true },
        tenant.headers,
      );
      assert.equal(late.status, 200, late.body);
      acknowledged.add(0);
      assert.equal(await restarted.stop(), 0, 'SIGTERM exits 0');

      const handle = await database.open();
      try {
        let torn = 0;
        let deletedGroups = 0;
        for (const [g, group] of groups.entries()) {
          const left = await handle.db
            .selectFrom('person_distinct_ids')
            .select('distinct_id')
            .where('team_id', '=', tenant.project.id)
            .where('distinct_id', 'in', group)
            .execute();
          const tasks = await handle.db
            .selectFrom('deletion_tasks')
            .select('id')
            .where('team_id', '=', tenant.project.id)
            .where('distinct_ids', '&&', sql<string[]>`${group}::text[]`)
            .execute();
          const gone = left.length === 0;
          if (acknowledged.has(g)) assert.ok(gone, `acknowledged group ${g} deleted`);
          if (!(gone && tasks.length === group.length) && !(left.length === group.length && tasks.length === 0))
            torn += 1;
          if (gone) {
            deletedGroups += 1;
            victimDistinctIds.push(...group);
          }
        }
        t.diagnostic(
          `bulk_delete under kill -9 (${database.kind}): ${groups.length} groups of ${GROUP_SIZE}, ${acknowledged.size} acknowledged, ${deletedGroups} committed, ${torn} torn`,
        );
        assert.equal(torn, 0, 'no group half deleted, no task without its deletion');
      } finally {
        await handle.close();
      }
    },
  );

  it(
    "resumes an event-deletion batch killed mid-way and deletes nothing but the queued persons' events",
    { timeout: 600_000 },
    async (t) => {
      const countEvents = async (db: Db, victims: boolean) => {
        const base = db
          .selectFrom('events')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('team_id', '=', tenant.project.id);
        if (victimDistinctIds.length === 0) return victims ? 0 : Number((await base.executeTakeFirstOrThrow()).n);
        return Number(
          (await base.where('distinct_id', victims ? 'in' : 'not in', victimDistinctIds).executeTakeFirstOrThrow()).n,
        );
      };
      const handle = await database.open();
      const othersBefore = await countEvents(handle.db, false);
      const victimsBefore = await countEvents(handle.db, true);
      // First an interruption at a known point: the batch dies after its third committed chunk.
      let chunks = 0;
      const deps: Deps = {
        db: handle.db,
        config: defaultConfig(),
        clock: { now: () => new Date() },
        log: createLogger('silent'),
      };
      await assert.rejects(
        runDeletionBatch(deps, {
          chunkSize: 7,
          onChunk: () => {
            chunks += 1;
            if (chunks === 3) throw new Error('simulated crash after a committed chunk');
          },
        }),
      );
      const victimsMidway = await countEvents(handle.db, true);
      assert.equal(await countEvents(handle.db, false), othersBefore, 'an interrupted batch deleted nothing else');
      if (victimsBefore > 21)
        assert.ok(
          victimsMidway < victimsBefore && victimsMidway > 0,
          `interrupted half-way: ${victimsBefore} → ${victimsMidway}`,
        );
      if (database.kind === 'pglite') await handle.close();

      const env: NodeJS.ProcessEnv = { ...process.env, ...database.env, DELETION_SCHEDULE: 'off', LOG_LEVEL: 'warn' };
      if (!database.env.DATABASE_URL) delete env.DATABASE_URL;
      const runner = spawn(process.execPath, [CLI, 'deletions', 'run', '--json'], { env, stdio: 'ignore' });
      const exited = new Promise((resolve) => runner.once('exit', resolve));
      await new Promise((r) => setTimeout(r, crypto.randomInt(200, 1500)));
      runner.kill('SIGKILL');
      await exited;
      const rerun = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'deletions', 'run', '--json'], {
          env,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk.toString()));
        child.stderr.on('data', (chunk) => (out += chunk.toString()));
        child.once('exit', (code) => resolve({ code, out }));
      });
      assert.equal(rerun.code, 0, rerun.out);

      const check = database.kind === 'pglite' ? await database.open() : handle;
      try {
        const pending = await check.db
          .selectFrom('deletion_tasks')
          .select('id')
          .where('team_id', '=', tenant.project.id)
          .where('delete_verified_at', 'is', null)
          .execute();
        const victimsAfter = await countEvents(check.db, true);
        const othersAfter = await countEvents(check.db, false);
        t.diagnostic(
          `deletion batch under kill -9 (${database.kind}): queued persons' events ${victimsBefore} → ${victimsMidway} (interrupted) → ${victimsAfter}, other events ${othersBefore} → ${othersAfter}, tasks pending ${pending.length}`,
        );
        assert.equal(pending.length, 0, 'every task verified after the resumed run');
        assert.equal(victimsAfter, 0, "every queued person's event deleted");
        assert.equal(othersAfter, othersBefore, 'no other event deleted');
      } finally {
        await check.close();
      }
    },
  );
});
