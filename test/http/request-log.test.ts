// At `info` a request leaves one log line, written once it is answered, with its request id, method,
// URL and status; the line of its arrival is only written at `debug`, and so is a successful probe
// of /_health or /_ready (a load balancer polls them every few seconds).
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import type { App } from '../../src/http/route-module.ts';
import { createLogger } from '../../src/log.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { makeTenant, type Tenant } from '../helpers/factories.ts';

interface Line {
  msg: string;
  level: number;
  reqId?: string;
  req?: { method: string; url: string };
  res?: { statusCode: number };
}

async function appLogging(database: TestDatabase, level: string): Promise<{ app: App; lines: () => Line[] }> {
  let logged = '';
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const app = await buildApp({
    db: database.db,
    config: defaultConfig(),
    clock: { now: () => new Date() },
    log: createLogger(level, destination),
  });
  return {
    app,
    lines: () =>
      logged
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as Line),
  };
}

describe('request log', () => {
  let database: TestDatabase;
  let tenant: Tenant;
  const apps: App[] = [];

  before(async () => {
    database = await createTestDatabase();
    tenant = await makeTenant(database.db);
  });
  after(async () => {
    for (const app of apps) await app.close();
    await database.close();
  });

  it('writes one line per answered request at info, with its id and status', async () => {
    const { app, lines } = await appLogging(database, 'info');
    apps.push(app);
    const requests = [
      { id: 'ok-1', url: `/api/projects/${tenant.project.id}/`, headers: tenant.headers, status: 200 },
      {
        id: 'refused-1',
        url: `/api/projects/${tenant.project.id}/`,
        headers: { authorization: 'Bearer phx_nobody' },
        status: 401,
      },
      { id: 'missing-1', url: '/no/such/path', headers: {}, status: 404 },
    ];
    for (const request of requests) {
      const res = await app.inject({
        method: 'GET',
        url: request.url,
        headers: { ...request.headers, 'x-request-id': request.id },
      });
      assert.equal(res.statusCode, request.status, request.url);
    }
    for (const request of requests) {
      const mine = lines().filter((line) => line.reqId === request.id);
      assert.deepEqual(
        mine.map((line) => [line.msg, line.req?.method, line.req?.url, line.res?.statusCode]),
        [['request completed', 'GET', request.url, request.status]],
        request.id,
      );
    }
  });

  it('writes the arrival too at debug', async () => {
    const { app, lines } = await appLogging(database, 'debug');
    apps.push(app);
    await app.inject({
      method: 'GET',
      url: `/api/projects/${tenant.project.id}/`,
      headers: { ...tenant.headers, 'x-request-id': 'traced-1' },
    });
    assert.deepEqual(
      lines()
        .filter((line) => line.reqId === 'traced-1')
        .map((line) => line.msg),
      ['incoming request', 'request completed'],
    );
  });

  it('logs a successful probe at debug, a failing one at info', async () => {
    const quiet = await appLogging(database, 'info');
    const traced = await appLogging(database, 'debug');
    apps.push(quiet.app, traced.app);
    for (const { app } of [quiet, traced]) {
      assert.equal(
        (await app.inject({ method: 'GET', url: '/_health', headers: { 'x-request-id': 'probe-1' } })).statusCode,
        200,
      );
      assert.equal(
        (await app.inject({ method: 'GET', url: '/_ready', headers: { 'x-request-id': 'probe-2' } })).statusCode,
        200,
      );
    }
    const probes = (lines: Line[]) =>
      lines
        .filter((line) => line.reqId?.startsWith('probe-'))
        .map((line) => [line.reqId, line.msg, line.level, line.res?.statusCode]);
    assert.deepEqual(probes(quiet.lines()), []);
    assert.deepEqual(
      probes(traced.lines()).filter((line) => line[1] === 'request completed'),
      [
        ['probe-1', 'request completed', 20, 200],
        ['probe-2', 'request completed', 20, 200],
      ],
    );

    // Readiness fails while the database does not answer: that is logged at info and above.
    const gone = await createTestDatabase();
    const down = await appLogging(gone, 'info');
    apps.push(down.app);
    await gone.close();
    assert.equal(
      (await down.app.inject({ method: 'GET', url: '/_ready', headers: { 'x-request-id': 'probe-3' } })).statusCode,
      503,
    );
    assert.deepEqual(
      probes(down.lines()).filter((line) => line[1] === 'request completed'),
      [['probe-3', 'request completed', 30, 503]],
    );
  });
});
