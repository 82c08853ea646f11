// The herd CLI as a user runs it: a child process per command, on a temporary DATA_DIR (PGlite) or,
// with TEST_DATABASE_URL, on a new empty PostgreSQL database. Results are checked through the API.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { defaultConfig } from '../../src/config.ts';
import { openPGlite, openPostgres, type DatabaseHandle, type Db } from '../../src/db/database.ts';
import type { LightMyRequestResponse } from 'fastify';
import { systemClock } from '../../src/deps.ts';
import { createLogger } from '../../src/log.ts';
import { createEmptyDatabase, runHerd, type HerdResult } from './herd-process.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** A successful --json run: exit 0 and exactly one JSON object on stdout. */
function jsonOf(result: HerdResult): Record<string, unknown> {
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, result.stdout);
  const value = JSON.parse(lines[0]);
  assert.equal(typeof value, 'object');
  assert.ok(value !== null && !Array.isArray(value));
  return value;
}

/** Exit 2, the message on stderr; stdout empty, or with --json exactly one {"error"} object. */
function assertUsageError(result: HerdResult, message: RegExp) {
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, message);
  if (result.stdout === '') return;
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, result.stdout);
  assert.match(JSON.parse(lines[0]).error, message);
}

describe(`herd CLI (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let env: Record<string, string>;
  let open: () => Promise<DatabaseHandle>;
  let cleanup: () => Promise<void>;
  const herd = (...args: string[]) => runHerd(args, env);

  type Call = (method: 'GET' | 'POST', url: string, key: string) => Promise<LightMyRequestResponse>;

  /** Opens the same storage (after the CLI process has exited) and serves the API over it. */
  async function withApi<T>(work: (call: Call, db: Db) => Promise<T>): Promise<T> {
    const handle = await open();
    const app = await buildApp({
      db: handle.db,
      config: defaultConfig(),
      clock: systemClock,
      log: createLogger('silent'),
    });
    try {
      return await work(
        (method, url, key) => app.inject({ method, url, headers: { authorization: `Bearer ${key}` } }),
        handle.db,
      );
    } finally {
      await app.close();
      await handle.close();
    }
  }

  const count = (db: Db, table: 'users' | 'personal_api_keys') =>
    db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
      .then((row) => row.n);

  before(async () => {
    if (onPostgres) {
      const database = await createEmptyDatabase();
      env = { DATABASE_URL: database.url };
      open = () => openPostgres(database.url, 2);
      cleanup = database.drop;
    } else {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-cli-'));
      env = { DATA_DIR: dir };
      open = () => openPGlite({ dataDir: dir });
      cleanup = async () => fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  after(() => cleanup());

  let bootstrapped: Record<string, unknown>;
  const email = `owner-${crypto.randomBytes(3).toString('hex')}@example.com`;

  it('migrate applies the migrations once, then nothing', async () => {
    const first = jsonOf(await herd('migrate', '--json'));
    assert.ok(Array.isArray(first.applied) && first.applied.includes('0001_initial'), JSON.stringify(first));
    assert.deepEqual(jsonOf(await herd('migrate', '--json')), { applied: [], distributed: [] });
  });

  it('bootstrap creates a user, an owned organization, a project and an all-scopes key', async () => {
    bootstrapped = jsonOf(
      await herd(
        'bootstrap',
        '--email',
        email,
        '--first-name',
        'Olive',
        '--organization-name',
        'Acme',
        '--project-name',
        'Web',
        '--json',
      ),
    );
    assert.deepEqual(Object.keys(bootstrapped).sort(), [
      'organization_id',
      'personal_api_key',
      'project_api_key',
      'project_id',
      'user',
    ]);
    const user = bootstrapped.user as { id: number; uuid: string; email: string };
    assert.deepEqual(Object.keys(user).sort(), ['email', 'id', 'uuid']);
    assert.equal(user.email, email);
    assert.match(String(bootstrapped.personal_api_key), /^phx_/);
    assert.match(String(bootstrapped.project_api_key), /^phc_/);
    assert.equal(typeof bootstrapped.project_id, 'number');

    const key = String(bootstrapped.personal_api_key);
    await withApi(async (api) => {
      const organization = await api('GET', '/api/organizations/@current/', key);
      assert.equal(organization.statusCode, 200, organization.body);
      assert.equal(organization.json().id, bootstrapped.organization_id);
      assert.equal(organization.json().name, 'Acme');
      assert.equal(organization.json().membership_level, 15);
      const projects = (await api('GET', '/api/projects/', key)).json();
      assert.equal(projects.results[0].id, bootstrapped.project_id);
      assert.equal(projects.results[0].name, 'Web');
      assert.equal(projects.results[0].api_token, bootstrapped.project_api_key);
      const keys = (await api('GET', '/api/personal_api_keys/', key)).json();
      assert.deepEqual(keys.results[0].scopes, ['*']);
    });
  });

  it('bootstrap reuses an existing user and prints people-readable lines without --json', async () => {
    const result = await herd('bootstrap', '--email', email.toUpperCase());
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /personal API key phx_/);
    const again = jsonOf(await herd('bootstrap', '--email', email, '--json'));
    assert.equal((again.user as { id: number }).id, (bootstrapped.user as { id: number }).id);
    assert.notEqual(again.organization_id, bootstrapped.organization_id);
  });

  it('users add makes a (new) user a member at the given level', async () => {
    const memberEmail = `member-${crypto.randomBytes(3).toString('hex')}@example.com`;
    const result = jsonOf(
      await herd(
        'users',
        'add',
        '--organization-id',
        String(bootstrapped.organization_id),
        '--email',
        memberEmail,
        '--level',
        '8',
        '--first-name',
        'Max',
        '--last-name',
        'Mustermann',
        '--json',
      ),
    );
    assert.deepEqual(Object.keys(result).sort(), ['level', 'membership_id', 'user']);
    assert.equal(result.level, 8);
    assert.equal((result.user as { email: string }).email, memberEmail);
    const members = await withApi(async (api) =>
      (
        await api(
          'GET',
          `/api/organizations/${bootstrapped.organization_id}/members/`,
          String(bootstrapped.personal_api_key),
        )
      ).json(),
    );
    const added = members.results.find((m: { id: string }) => m.id === result.membership_id);
    assert.equal(added.level, 8);
    assert.equal(added.user.first_name, 'Max');

    const twice = await herd(
      'users',
      'add',
      '--organization-id',
      String(bootstrapped.organization_id),
      '--email',
      memberEmail,
      '--json',
    );
    assertUsageError(twice, /already a member/);
  });

  it('users add refuses wrong arguments with exit 2 and writes nothing', async () => {
    const users = await withApi((_api, db) => count(db, 'users'));
    const organization = String(bootstrapped.organization_id);
    assertUsageError(
      await herd('users', 'add', '--organization-id', organization, '--email', 'new@example.com', '--level', '5'),
      /--level must be 1, 8 or 15/,
    );
    for (const level of ['8.0', '0x8', '1e0']) {
      assertUsageError(
        await herd('users', 'add', '--organization-id', organization, '--email', 'new@example.com', '--level', level),
        /--level must be 1, 8 or 15/,
      );
    }
    assertUsageError(
      await herd('users', 'add', '--organization-id', 'nope', '--email', 'new@example.com'),
      /--organization-id must be a UUID/,
    );
    assertUsageError(
      await herd('users', 'add', '--organization-id', crypto.randomUUID(), '--email', 'new@example.com'),
      /no organization/,
    );
    assertUsageError(
      await herd('users', 'add', '--organization-id', organization, '--email', 'not-an-email'),
      /--email must be an e-mail address/,
    );
    assertUsageError(await herd('users', 'add', '--organization-id', organization), /--email is required/);
    assert.equal(await withApi((_api, db) => count(db, 'users')), users);
  });

  it('keys create makes a key shown once, limited as asked', async () => {
    const result = jsonOf(
      await herd(
        'keys',
        'create',
        '--email',
        email,
        '--scopes',
        'person:read,project:read',
        '--scoped-organizations',
        String(bootstrapped.organization_id),
        '--label',
        'reader',
        '--json',
      ),
    );
    assert.deepEqual(Object.keys(result).sort(), ['id', 'value']);
    assert.match(String(result.value), /^phx_/);
    const teams = jsonOf(
      await herd(
        'keys',
        'create',
        '--email',
        email,
        '--scopes',
        '*',
        '--scoped-teams',
        String(bootstrapped.project_id),
        '--json',
      ),
    );
    await withApi(async (api) => {
      const key = String(result.value);
      const projects = await api('GET', '/api/projects/', key);
      assert.equal(projects.statusCode, 200);
      assert.ok(projects.json().results.length > 0);
      assert.ok(
        projects.json().results.every((p: { organization: string }) => p.organization === bootstrapped.organization_id),
      );
      const organizations = await api('GET', '/api/organizations/', key);
      assert.equal(organizations.json().detail, "API key missing required scope 'organization:read'");
      const scoped = await api('GET', `/api/projects/${bootstrapped.project_id}/`, String(teams.value));
      assert.equal(scoped.statusCode, 200);
      const outside = await api('GET', '/api/organizations/@current/', String(teams.value));
      assert.equal(outside.statusCode, 403);
    });
  });

  it('keys create refuses wrong arguments with exit 2 and writes nothing', async () => {
    const keys = await withApi((_api, db) => count(db, 'personal_api_keys'));
    assertUsageError(
      await herd('keys', 'create', '--email', email, '--scopes', 'person:read,bogus'),
      /Invalid scope: bogus/,
    );
    const refused = await herd('keys', 'create', '--email', email, '--scopes', 'bogus', '--json');
    assertUsageError(refused, /Invalid scope: bogus/);
    assert.deepEqual(Object.keys(JSON.parse(refused.stdout)), ['error']);
    assertUsageError(await herd('keys', 'create', '--email', email, '--scopes', ''), /--scopes is required/);
    assertUsageError(await herd('keys', 'create', '--email', email), /--scopes is required/);
    assertUsageError(
      await herd('keys', 'create', '--email', 'nobody@example.com', '--scopes', '*'),
      /no user with e-mail/,
    );
    assertUsageError(
      await herd('keys', 'create', '--email', email, '--scopes', '*', '--scoped-teams', 'x'),
      /--scoped-teams must be project ids/,
    );
    assertUsageError(
      await herd('keys', 'create', '--email', email, '--scopes', '*', '--scoped-organizations', 'nope'),
      /Invalid organization UUID/,
    );
    assertUsageError(
      await herd('keys', 'create', '--email', email, '--scopes', '*', '--scoped-organizations', crypto.randomUUID()),
      /must be a member of all organizations/,
    );
    assert.equal(await withApi((_api, db) => count(db, 'personal_api_keys')), keys);
  });

  it('deletions run reports what it did as one JSON object', async () => {
    const result = jsonOf(await herd('deletions', 'run', '--json'));
    assert.deepEqual(Object.keys(result).sort(), ['events_deleted', 'events_scrubbed', 'kinds', 'processed']);
    assert.deepEqual(Object.keys(result.kinds as object).sort(), [
      'events',
      'person',
      'person_events',
      'retention',
      'scrub',
    ]);
    assert.equal(typeof result.processed, 'number');
    assert.equal(typeof result.events_deleted, 'number');
  });

  it('a failure that is no wrong argument exits 1, and with --json still prints one JSON object', async () => {
    const result = await runHerd(['migrate', '--json'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/unreachable' });
    assert.equal(result.code, 1, result.stderr);
    const lines = result.stdout.split('\n').filter((line) => line !== '');
    assert.equal(lines.length, 1, result.stdout);
    assert.deepEqual(Object.keys(JSON.parse(lines[0])), ['error']);
  });

  it('an unknown command or option, or a bad environment, exits 2 before touching storage', async () => {
    const fresh = path.join(os.tmpdir(), `herd-untouched-${crypto.randomBytes(4).toString('hex')}`);
    const untouched = { DATA_DIR: fresh };
    const unknown = await runHerd(['frobnicate'], untouched);
    assertUsageError(unknown, /unknown command: frobnicate/);
    assertUsageError(await runHerd(['migrate', '--bogus'], untouched), /Unknown option '--bogus'/);
    assertUsageError(await runHerd(['bootstrap', '--json'], untouched), /--email is required/);
    assertUsageError(
      await runHerd(['bootstrap', '--email', 'a@example.com', 'extra'], untouched),
      /Unexpected argument 'extra'/,
    );
    assertUsageError(await runHerd(['migrate'], { ...untouched, PORT: 'abc' }), /PORT must be an integer/);
    assertUsageError(await runHerd([], untouched), /no command given/);
    assert.equal(fs.existsSync(fresh), false);
    const help = await runHerd(['--help'], untouched);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /keys create/);
  });

  it('prints help for herd and for every command, and the version, exiting 0 without touching storage', async () => {
    const fresh = path.join(os.tmpdir(), `herd-untouched-${crypto.randomBytes(4).toString('hex')}`);
    const untouched = { DATA_DIR: fresh };
    // Each command's usage and options as contract §1 gives them.
    const contract: Record<string, { usage: string; flags: string[] }> = {
      serve: { usage: 'herd serve [--workers N|auto] [--json]', flags: ['--workers N|auto'] },
      migrate: { usage: 'herd migrate [--json]', flags: [] },
      bootstrap: {
        usage: 'herd bootstrap --email E [--first-name F] [--organization-name N] [--project-name P] [--json]',
        flags: ['--email E', '--first-name F', '--organization-name N', '--project-name P'],
      },
      'users add': {
        usage:
          'herd users add --organization-id O --email E [--level 1|8|15] [--first-name F] [--last-name L] [--json]',
        flags: ['--organization-id O', '--email E', '--level 1|8|15', '--first-name F', '--last-name L'],
      },
      'keys create': {
        usage:
          'herd keys create --email E --scopes s1,s2 [--scoped-organizations O1,O2] [--scoped-teams P1,P2] [--label L] [--json]',
        flags: ['--email E', '--scopes s1,s2', '--scoped-organizations O1,O2', '--scoped-teams P1,P2', '--label L'],
      },
      'deletions run': { usage: 'herd deletions run [--json]', flags: [] },
    };
    const asked: [string, string[]][] = Object.keys(contract).map((name) => [name, [...name.split(' '), '--help']]);
    asked.push(
      ['users add', ['users', 'add', '-h']],
      ['users add', ['help', 'users', 'add']],
      ['users add', ['users', 'add', '--email', 'x@example.com', '--help']],
    );
    const answers = await Promise.all(asked.map(([, args]) => runHerd(args, untouched)));
    asked.forEach(([name, args], i) => {
      const { usage, flags } = contract[name];
      assert.equal(answers[i].code, 0, `${args.join(' ')}: ${answers[i].stderr}`);
      assert.equal(answers[i].stderr, '');
      const lines = answers[i].stdout.split('\n');
      assert.equal(lines[0], `usage: ${usage}`);
      for (const flag of [...flags, '--json', '-h, --help'])
        assert.ok(
          lines.some((line) => line.startsWith(`  ${flag} `)),
          `${name} lists ${flag}`,
        );
    });
    const usersAdd = answers[asked.findIndex(([name]) => name === 'users add')];
    assert.match(usersAdd.stdout, /--level 1\|8\|15 +1 member \(default\), 8 admin, 15 owner/);
    assert.match(usersAdd.stdout, /POST \/api\/organizations\/<organization_id>\/members\//);

    for (const [args, result] of await Promise.all(
      [['--help'], ['-h'], ['help']].map(async (args) => [args, await runHerd(args, untouched)] as const),
    )) {
      assert.equal(result.code, 0, result.stderr);
      for (const name of Object.keys(contract))
        assert.match(result.stdout, new RegExp(`^  ${name} +\\S`, 'm'), `${args[0]} lists ${name}`);
    }
    const asJson = jsonOf(await runHerd(['users', 'add', '--help', '--json'], untouched));
    assert.match(String(asJson.help), /^usage: herd users add /);

    const { version } = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const printed = await runHerd(['--version'], untouched);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, `${version}\n`);
    assert.deepEqual(jsonOf(await runHerd(['--version', '--json'], untouched)), { version });

    assertUsageError(await runHerd(['help', 'frobnicate'], untouched), /unknown command: frobnicate/);
    assert.equal(fs.existsSync(fresh), false);
  });
});
