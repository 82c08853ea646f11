// The first account of an empty install, created with the server's setup token: who is admitted
// (the token, only while no user exists), what it answers (what `herd bootstrap --json` prints),
// bad fields, the race of several requests (and of two servers on one database), the rate limit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { defaultConfig, type Config } from '../../src/config.ts';
import { openPostgres, type Db } from '../../src/db/database.ts';
import { systemClock, type Deps } from '../../src/deps.ts';
import type { App } from '../../src/http/route-module.ts';
import { SETUP_ATTEMPTS } from '../../src/http/routes/setup.routes.ts';
import { createLogger } from '../../src/log.ts';
import { SetupGate } from '../../src/modules/setup/setup-gate.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { bearer, makeUser } from '../helpers/factories.ts';

interface Server {
  app: App;
  /** The token it would print; null when the database held a user at start. */
  token: string | null;
}

/** What server.ts does at start: a setup gate when the database holds no user, then the app. */
async function startOn(db: Db, config: Partial<Config> = {}): Promise<Server> {
  const opened = await SetupGate.open(db);
  const deps: Deps = {
    db,
    config: defaultConfig(config),
    clock: systemClock,
    log: createLogger('silent'),
    setup: opened?.gate,
  };
  return { app: await buildApp(deps), token: opened?.token ?? null };
}

const post = (server: Server, payload: unknown) =>
  server.app.inject({ method: 'POST', url: '/api/setup/', payload: payload as object });

async function counts(db: Db) {
  const count = async (table: 'users' | 'organizations' | 'teams' | 'personal_api_keys') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    users: await count('users'),
    organizations: await count('organizations'),
    projects: await count('teams'),
    keys: await count('personal_api_keys'),
  };
}

/** A new database and a server started on it for the enclosing describe (`seed` runs before the start). */
function serverFor(options: { config?: Partial<Config>; seed?: (db: Db) => Promise<unknown> } = {}) {
  const context = {} as { database: TestDatabase; server: Server };
  before(async () => {
    context.database = await createTestDatabase();
    await options.seed?.(context.database.db);
    context.server = await startOn(context.database.db, options.config);
  });
  after(async () => {
    await context.server.app.close();
    await context.database.close();
  });
  return context;
}

describe('setup on an empty database', () => {
  const ctx = serverFor();

  it('makes a token of at least 128 random bits', () => {
    assert.ok(ctx.server.token);
    assert.match(ctx.server.token, /^[A-Za-z0-9_-]+$/);
    assert.ok(ctx.server.token.length * 6 >= 128, ctx.server.token);
  });

  it('says setup is open, and nothing more', async () => {
    const res = await ctx.server.app.inject({ method: 'GET', url: '/api/setup/' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { open: true });
  });

  it('refuses a missing or wrong token with 403, whatever the fields, and writes nothing', async () => {
    const valid = { email: 'ada@example.com' };
    for (const payload of [valid, { ...valid, token: 'wrong' }, { ...valid, token: `${ctx.server.token}x` }, []]) {
      const res = await post(ctx.server, payload);
      assert.equal(res.statusCode, 403, JSON.stringify(payload));
      assert.deepEqual(res.json(), {
        type: 'authentication_error',
        code: 'permission_denied',
        detail: 'The setup token is missing or wrong: open the link the server printed.',
        attr: null,
      });
    }
    const bad = await post(ctx.server, { token: 1, email: 'not an e-mail' });
    assert.equal(bad.statusCode, 403);
    assert.deepEqual(await counts(ctx.database.db), { users: 0, organizations: 0, projects: 0, keys: 0 });
  });

  it('answers bad fields with 400 naming them, and writes nothing', async () => {
    const token = ctx.server.token;
    const cases: [Record<string, unknown>, string][] = [
      [{ token }, 'email'],
      [{ token, email: 'not an e-mail' }, 'email'],
      [{ token, email: 'ada@example.com', organization_name: '' }, 'organization_name'],
      [{ token, email: 'ada@example.com', organization_name: 'o'.repeat(65) }, 'organization_name'],
      [{ token, email: 'ada@example.com', project_name: 'p'.repeat(201) }, 'project_name'],
      [{ token, email: 'ada@example.com', first_name: { toString: '' } }, 'first_name'],
    ];
    for (const [payload, attr] of cases) {
      const res = await post(ctx.server, payload);
      assert.equal(res.statusCode, 400, `${JSON.stringify(payload)}: ${res.body}`);
      assert.equal(res.json().type, 'validation_error');
      assert.equal(res.json().attr, attr, JSON.stringify(payload));
    }
    assert.deepEqual(await counts(ctx.database.db), { users: 0, organizations: 0, projects: 0, keys: 0 });
  });

  it('creates the first account with the right token: 201 with what bootstrap --json prints, a key that works', async () => {
    const res = await post(ctx.server, {
      token: ctx.server.token,
      email: 'ada@example.com',
      first_name: 'Ada',
      organization_name: 'Analytical Engines',
      project_name: 'Difference',
    });
    assert.equal(res.statusCode, 201, res.body);
    const account = res.json();
    assert.deepEqual(Object.keys(account).sort(), [
      'organization_id',
      'personal_api_key',
      'project_api_key',
      'project_id',
      'user',
    ]);
    assert.deepEqual(Object.keys(account.user).sort(), ['email', 'id', 'uuid']);
    assert.equal(account.user.email, 'ada@example.com');
    assert.match(account.personal_api_key, /^phx_/);
    assert.match(account.project_api_key, /^phc_/);

    const headers = bearer(account.personal_api_key);
    const organization = await ctx.server.app.inject({
      method: 'GET',
      url: `/api/organizations/${account.organization_id}/`,
      headers,
    });
    assert.equal(organization.statusCode, 200, organization.body);
    assert.equal(organization.json().name, 'Analytical Engines');
    assert.equal(organization.json().membership_level, 15);
    const project = await ctx.server.app.inject({
      method: 'GET',
      url: `/api/projects/${account.project_id}/`,
      headers,
    });
    assert.equal(project.json().name, 'Difference');
    assert.equal(project.json().api_token, account.project_api_key);
    const keys = (await ctx.server.app.inject({ method: 'GET', url: '/api/personal_api_keys/', headers })).json();
    assert.deepEqual(keys.results[0].scopes, ['*']);
    const user = await ctx.database.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.equal(user.first_name, 'Ada');
  });

  it('is closed once the account exists: 404 whatever the token, and GET says so', async () => {
    for (const token of [ctx.server.token, 'wrong', undefined]) {
      const res = await post(ctx.server, { token, email: 'eve@example.com' });
      assert.equal(res.statusCode, 404, res.body);
      assert.equal(res.json().code, 'not_found');
    }
    assert.deepEqual((await ctx.server.app.inject({ method: 'GET', url: '/api/setup/' })).json(), { open: false });
    assert.deepEqual(await counts(ctx.database.db), { users: 1, organizations: 1, projects: 1, keys: 1 });
  });
});

describe('setup on a database with users', () => {
  const ctx = serverFor({ seed: makeUser });

  it('makes no token, says setup is closed and answers 404 to any attempt', async () => {
    assert.equal(ctx.server.token, null);
    assert.deepEqual((await ctx.server.app.inject({ method: 'GET', url: '/api/setup/' })).json(), { open: false });
    const res = await post(ctx.server, { token: 'anything', email: 'eve@example.com' });
    assert.equal(res.statusCode, 404);
    assert.equal((await counts(ctx.database.db)).users, 1);
  });
});

describe('setup closed by an account made elsewhere (herd bootstrap beside the server)', () => {
  const ctx = serverFor();

  it('answers 404 to the right token once a user exists', async () => {
    await makeUser(ctx.database.db);
    const res = await post(ctx.server, { token: ctx.server.token, email: 'eve@example.com' });
    assert.equal(res.statusCode, 404, res.body);
    assert.deepEqual((await ctx.server.app.inject({ method: 'GET', url: '/api/setup/' })).json(), { open: false });
  });
});

describe('racing requests with the right token', () => {
  let database: TestDatabase;
  let second: { db: Db; close(): Promise<void> } | null = null;
  const servers: Server[] = [];
  before(async () => {
    database = await createTestDatabase();
    // Two servers: on PostgreSQL each with its own pool (as two processes), on PGlite on the one handle.
    second = database.connection ? await openPostgres(database.connection, 5) : null;
    servers.push(await startOn(database.db), await startOn(second?.db ?? database.db));
  });
  after(async () => {
    for (const server of servers) await server.app.close();
    await second?.close();
    await database.close();
  });

  it('creates exactly one account; every other request gets 404', async () => {
    const attempts = Array.from({ length: 8 }, (_, i) =>
      post(servers[i % 2], { token: servers[i % 2].token, email: `racer-${i}@example.com` }),
    );
    const statuses = (await Promise.all(attempts)).map((res) => res.statusCode);
    assert.deepEqual(
      statuses.filter((status) => status === 201),
      [201],
      JSON.stringify(statuses),
    );
    assert.deepEqual(
      statuses.filter((status) => status !== 201),
      Array(7).fill(404),
    );
    assert.deepEqual(await counts(database.db), { users: 1, organizations: 1, projects: 1, keys: 1 });
  });
});

describe('setup attempts are rate limited', () => {
  const ctx = serverFor({ config: { rateLimit: true } });

  it(`answers 429 with Retry-After after ${SETUP_ATTEMPTS.perMinute} attempts a minute from one address`, async () => {
    for (let i = 0; i < SETUP_ATTEMPTS.perMinute; i++) {
      assert.equal((await post(ctx.server, { token: 'guess', email: 'eve@example.com' })).statusCode, 403);
    }
    const refused = await post(ctx.server, { token: ctx.server.token, email: 'eve@example.com' });
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.json().code, 'throttled');
    assert.match(String(refused.headers['retry-after']), /^\d+$/);
    const elsewhere = await ctx.server.app.inject({
      method: 'POST',
      url: '/api/setup/',
      remoteAddress: '192.0.2.7',
      payload: { token: ctx.server.token, email: 'ada@example.com' },
    });
    assert.equal(elsewhere.statusCode, 201, 'another address has its own budget');
  });
});
