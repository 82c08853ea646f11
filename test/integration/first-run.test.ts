// The first run as an operator meets it: `herd serve` (what `npm start` runs) on an empty database
// prints one setup link on standard output and in the log, and none once a user exists; the link's
// token creates the first account (what `herd bootstrap --json` prints), a restart makes a new
// token, and on PostgreSQL two servers raced with their own tokens create one account.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { printedLink, serve, setupLines, type Serving } from './first-run-process.ts';
import { createEmptyDatabase, runHerd, startHerd } from './herd-process.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

const setup = (base: string, body: Record<string, unknown>) =>
  fetch(`${base}/api/setup/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const shapeOf = (value: unknown): unknown =>
  value !== null && typeof value === 'object'
    ? Object.fromEntries(
        Object.entries(value)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([key, item]) => [key, shapeOf(item)]),
      )
    : typeof value;

/** A new empty database: a PostgreSQL database of the test server, or a PGlite directory. */
async function emptyStorage(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  if (onPostgres) {
    const database = await createEmptyDatabase();
    return { env: { DATABASE_URL: database.url }, drop: database.drop };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-first-run-'));
  return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) };
}

describe(`first run of herd serve (${onPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  before(async () => {
    ({ env, drop: cleanup } = await emptyStorage());
  });
  after(() => cleanup());

  it('prints a link on an empty database, a new one on restart; the link creates the first account, then no link', async () => {
    const first = await serve(env);
    let earlier: string;
    try {
      const { link, base, token } = await printedLink(first);
      assert.equal(base, first.url);
      assert.ok(token.length * 6 >= 128, token);
      assert.equal(new URL(link).hash, `#/setup?token=${token}`);
      earlier = token;
    } finally {
      assert.equal(await first.stop(), 0);
    }

    const second = await serve({ ...env, SITE_URL: 'https://herd.example.com/' });
    let account: Record<string, unknown>;
    try {
      const { base, token } = await printedLink(second);
      assert.equal(base, 'https://herd.example.com', 'SITE_URL names the link');
      assert.notEqual(token, earlier, 'a restart makes a new token');
      assert.equal((await setup(second.url, { token: earlier, email: 'ada@example.com' })).status, 403);
      const created = await setup(second.url, { token, email: 'ada@example.com', project_name: 'Engines' });
      assert.equal(created.status, 201);
      account = (await created.json()) as Record<string, unknown>;
      assert.equal((await setup(second.url, { token, email: 'eve@example.com' })).status, 404);
      const projects = await fetch(`${second.url}/api/projects/`, {
        headers: { authorization: `Bearer ${String(account.personal_api_key)}` },
      });
      assert.equal(((await projects.json()) as { results: { name: string }[] }).results[0].name, 'Engines');
    } finally {
      assert.equal(await second.stop(), 0);
    }

    const third = await serve(env);
    try {
      const open = await fetch(`${third.url}/api/setup/`);
      assert.deepEqual(await open.json(), { open: false });
    } finally {
      assert.equal(await third.stop(), 0);
    }
    assert.deepEqual(setupLines(third.stdout()), { plain: [], logged: [] }, 'no link once a user exists');

    // The same answer as the command's: `herd bootstrap --json` on another empty database.
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'herd-first-run-cli-'));
    try {
      const printed = await runHerd(['bootstrap', '--email', 'ada@example.com', '--json'], { DATA_DIR: other });
      assert.equal(printed.code, 0, printed.stderr);
      assert.deepEqual(shapeOf(account), shapeOf(JSON.parse(printed.stdout)));
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('with --json, the link is in the one result object on stdout, and in the log on stderr', async () => {
    const storage = await emptyStorage();
    try {
      await checkJsonServe(storage.env);
    } finally {
      await storage.drop();
    }
  });
});

async function checkJsonServe(env: Record<string, string>) {
  const child = startHerd(['serve', '--json'], { ...env, PORT: '0', RATE_LIMIT: 'off' });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  while (!stdout.includes('\n') && child.exitCode === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  try {
    const result = JSON.parse(stdout.split('\n')[0]) as { url: string; setup_url: string };
    assert.match(result.setup_url, new RegExp(`^${result.url}/#/setup\\?token=[A-Za-z0-9_-]{22,}$`));
    // The log is written on its own schedule: the result may come first.
    const logged = Date.now() + 10_000;
    while (!stderr.includes(result.setup_url) && Date.now() < logged)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(stderr.includes(result.setup_url), 'the log (on stderr) has the link');
  } finally {
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  }
  assert.equal(stdout.split('\n').filter((line) => line !== '').length, 1, stdout);
}

/** A POST /api/setup/ on a connection of its own (so a fleet's primary hands each to the next worker). */
function setupOnNewConnection(base: string, body: Record<string, unknown>): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const request = http.request(
      `${base}/api/setup/`,
      { method: 'POST', agent: false, headers: { 'content-type': 'application/json', connection: 'close' } },
      (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.once('error', reject);
    request.end(text);
  });
}

describe('a fleet of workers on an empty PostgreSQL database', () => {
  if (onPostgres)
    it('prints one link, and every worker takes its token', async () => {
      const database = await createEmptyDatabase();
      const fleet = await serve({ DATABASE_URL: database.url, WEB_CONCURRENCY: '3' });
      try {
        const { token } = await printedLink(fleet);
        // The right token with a bad e-mail: 400 from a worker that knows the token, 403 from one that does not.
        const checked = [];
        for (let i = 0; i < 9; i++)
          checked.push(await setupOnNewConnection(fleet.url, { token, email: 'not-an-email' }));
        assert.deepEqual(checked, Array(9).fill(400));
        assert.equal(await setupOnNewConnection(fleet.url, { token, email: 'ada@example.com' }), 201);
        const after = [];
        for (let i = 0; i < 6; i++)
          after.push(await setupOnNewConnection(fleet.url, { token, email: 'eve@example.com' }));
        assert.deepEqual(after, Array(6).fill(404));
      } finally {
        assert.equal(await fleet.stop(), 0);
        await database.drop();
      }
    });
});

describe('servers on one PostgreSQL database, each with its own link', () => {
  if (onPostgres)
    it('herd bootstrap beside a server works, and closes its setup', async () => {
      const database = await createEmptyDatabase();
      const server = await serve({ DATABASE_URL: database.url });
      try {
        const { token } = await printedLink(server);
        const printed = await runHerd(['bootstrap', '--email', 'ops@example.com', '--json'], {
          DATABASE_URL: database.url,
        });
        assert.equal(printed.code, 0, printed.stderr);
        assert.equal((await setup(server.url, { token, email: 'ada@example.com' })).status, 404);
        assert.deepEqual(await (await fetch(`${server.url}/api/setup/`)).json(), { open: false });
      } finally {
        await server.stop();
        await database.drop();
      }
    });

  if (onPostgres)
    it('two servers raced with their own tokens create exactly one account', async () => {
      const database = await createEmptyDatabase();
      const servers: Serving[] = [];
      try {
        // One after the other: the first migrates the new database.
        servers.push(await serve({ DATABASE_URL: database.url }));
        servers.push(await serve({ DATABASE_URL: database.url }));
        const links = await Promise.all(servers.map((server) => printedLink(server)));
        assert.notEqual(links[0].token, links[1].token);
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            setup(servers[i % 2].url, { token: links[i % 2].token, email: `racer-${i}@example.com` }),
          ),
        );
        const statuses = answers.map((res) => res.status).sort();
        assert.deepEqual(statuses, [201, 404, 404, 404, 404, 404, 404, 404]);
        for (const server of servers) {
          const open = await fetch(`${server.url}/api/setup/`);
          assert.deepEqual(await open.json(), { open: false });
        }
      } finally {
        for (const server of servers) await server.stop();
        await database.drop();
      }
    });
});
