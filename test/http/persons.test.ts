import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { setupTestApp, type TestContext } from '../helpers/app.ts';
import {
  bearer,
  makeKey,
  makePerson,
  makeProject,
  makeTenant,
  makeTenantMember,
  type Tenant,
  type TestPerson,
} from '../helpers/factories.ts';
import { enc } from './persons.fixtures.ts';

describe('persons list and retrieve', () => {
  let ctx: TestContext;
  let tenant: Tenant;
  let other: Tenant;
  let url: string;
  const persons: TestPerson[] = [];

  before(async () => {
    ctx = await setupTestApp();
    tenant = await makeTenant(ctx.deps.db);
    other = await makeTenant(ctx.deps.db);
    url = `/api/projects/${tenant.project.id}/persons/`;
    const db = ctx.deps.db;
    const t = tenant.project.id;
    // Oldest first; the list answers newest first.
    persons.push(
      await makePerson(db, t, {
        properties: { email: 'alice@example.com', name: 'Alice' },
        distinctIds: ['alice', 'alice-2'],
        createdAt: '2026-01-01T00:00:00Z',
      }),
    );
    persons.push(
      await makePerson(db, t, {
        properties: { name: 'Bob Builder' },
        distinctIds: ['bob'],
        createdAt: '2026-01-02T00:00:00Z',
      }),
    );
    persons.push(
      await makePerson(db, t, {
        properties: { Email: 'Carol@Example.com' },
        distinctIds: ['carol'],
        createdAt: '2026-01-03T00:00:00Z',
      }),
    );
    persons.push(
      await makePerson(db, t, {
        properties: {},
        distinctIds: ['0188a-1b2c-3d4e-5f6a-7b8c', 'named-dave'],
        createdAt: '2026-01-04T00:00:00Z',
      }),
    );
    persons.push(
      await makePerson(db, t, {
        properties: { username: '' },
        distinctIds: ['0188a-1b2c-3d4e-5f6a-7b8d'],
        createdAt: '2026-01-05T00:00:00Z',
      }),
    );
    persons.push(
      await makePerson(db, t, { properties: { email: '' }, distinctIds: [], createdAt: '2026-01-06T00:00:00Z' }),
    );
    await makePerson(db, other.project.id, { properties: { email: 'alice@example.com' }, distinctIds: ['alice'] });
  });
  after(() => ctx.close());

  const get = (path: string, headers: Record<string, string> = tenant.headers) =>
    ctx.app.inject({ method: 'GET', url: path, headers });

  it('lists newest first with the Person object exactly', async () => {
    const res = await get(url);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.count, 6);
    assert.equal(body.next, null);
    assert.equal(body.previous, null);
    assert.deepEqual(
      body.results.map((p: { id: number }) => p.id),
      [...persons].reverse().map((p) => p.id),
    );
    const alice = body.results[5];
    assert.deepEqual(alice, {
      id: persons[0].id,
      name: 'alice@example.com',
      distinct_ids: ['alice', 'alice-2'],
      properties: { email: 'alice@example.com', name: 'Alice' },
      created_at: '2026-01-01T00:00:00.000Z',
      uuid: persons[0].uuid,
    });
  });

  it('derives the name: properties in order, then a non-anonymous distinct id, then the first, then the id', async () => {
    const res = await get(url);
    const names = Object.fromEntries(res.json().results.map((p: { id: number; name: string }) => [p.id, p.name]));
    assert.equal(names[persons[1].id], 'Bob Builder');
    assert.equal(names[persons[2].id], 'Carol@Example.com');
    assert.equal(names[persons[3].id], 'named-dave');
    assert.equal(names[persons[4].id], '0188a-1b2c-3d4e-5f6a-7b8d');
    assert.equal(names[persons[5].id], String(persons[5].id));
  });

  it('paginates with absolute next and previous links and the exact count', async () => {
    const first = await get(`${url}?limit=2`);
    const body = first.json();
    assert.equal(body.count, 6);
    assert.equal(body.results.length, 2);
    assert.equal(body.previous, null);
    assert.equal(body.next, `http://localhost:80${url}?limit=2&offset=2`);
    const second = (await get(`${url}?limit=2&offset=2`)).json();
    assert.equal(second.previous, `http://localhost:80${url}?limit=2&offset=0`);
    assert.equal(second.next, `http://localhost:80${url}?limit=2&offset=4`);
    assert.deepEqual(
      second.results.map((p: { id: number }) => p.id),
      [persons[3].id, persons[2].id],
    );
    const last = (await get(`${url}?limit=2&offset=4`)).json();
    assert.equal(last.next, null);
    // Past the end: no persons, the count still exact.
    const past = (await get(`${url}?limit=2&offset=10`)).json();
    assert.deepEqual(
      [past.count, past.results, past.next, past.previous],
      [6, [], null, `http://localhost:80${url}?limit=2&offset=8`],
    );
  });

  it('lists a project without persons as an empty page of count 0', async () => {
    const empty = await makeTenant(ctx.deps.db);
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/projects/${empty.project.id}/persons/`,
      headers: empty.headers,
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { count: 0, next: null, previous: null, results: [] });
  });

  it('keeps the filters in the page links', async () => {
    const body = (await get(`${url}?search=o&limit=1`)).json();
    assert.equal(body.count, 2);
    const next = new URL(body.next);
    assert.equal(next.searchParams.get('search'), 'o');
    assert.equal(next.searchParams.get('offset'), '1');
  });

  it('rejects bad limit and offset naming the parameter', async () => {
    assert.equal((await get(`${url}?limit=5000`)).json().results.length, 6);
    for (const [query, attr] of [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=99999999999999999999', 'offset'],
    ]) {
      const res = await get(`${url}?${query}`);
      assert.equal(res.statusCode, 400, query);
      assert.equal(res.json().attr, attr);
    }
  });

  it("filters by distinct_id (any of the person's), email (exact) and search", async () => {
    assert.deepEqual(
      (await get(`${url}?distinct_id=alice-2`)).json().results.map((p: { id: number }) => p.id),
      [persons[0].id],
    );
    assert.equal((await get(`${url}?distinct_id=nobody`)).json().count, 0);
    assert.deepEqual(
      (await get(`${url}?email=alice@example.com`)).json().results.map((p: { id: number }) => p.id),
      [persons[0].id],
    );
    assert.equal((await get(`${url}?email=ALICE@example.com`)).json().count, 0);
    // search: substring of email or name, any case; exact distinct id; exact uuid.
    assert.deepEqual(
      (await get(`${url}?search=ALICE@`)).json().results.map((p: { id: number }) => p.id),
      [persons[0].id],
    );
    assert.deepEqual(
      (await get(`${url}?search=builder`)).json().results.map((p: { id: number }) => p.id),
      [persons[1].id],
    );
    assert.deepEqual(
      (await get(`${url}?search=named-dave`)).json().results.map((p: { id: number }) => p.id),
      [persons[3].id],
    );
    assert.equal((await get(`${url}?search=named-da`)).json().count, 0);
    assert.deepEqual(
      (await get(`${url}?search=${persons[4].uuid}`)).json().results.map((p: { id: number }) => p.id),
      [persons[4].id],
    );
    // A LIKE wildcard in the term is literal.
    assert.equal((await get(`${url}?search=%25`)).json().count, 0);
  });

  it('combines filters with AND', async () => {
    const res = await get(`${url}?search=example&properties=${enc([{ key: 'name', value: 'Alice' }])}`);
    assert.deepEqual(
      res.json().results.map((p: { id: number }) => p.id),
      [persons[0].id],
    );
    assert.equal((await get(`${url}?distinct_id=bob&email=alice@example.com`)).json().count, 0);
  });

  it('retrieves by integer id and by uuid', async () => {
    const byId = await get(`${url}${persons[0].id}/`);
    assert.equal(byId.statusCode, 200, byId.body);
    assert.equal(byId.json().uuid, persons[0].uuid);
    const byUuid = await get(`${url}${persons[0].uuid.toUpperCase()}`);
    assert.equal(byUuid.statusCode, 200, byUuid.body);
    assert.equal(byUuid.json().id, persons[0].id);
  });

  it('answers 400 for an id that is neither an integer nor a uuid, 404 for an unknown one', async () => {
    const bad = await get(`${url}alice/`);
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), {
      type: 'validation_error',
      code: 'invalid_input',
      detail:
        'The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=alice instead.',
      attr: null,
    });
    assert.equal((await get(`${url}999999/`)).statusCode, 404);
    assert.equal((await get(`${url}99999999999999999999999/`)).statusCode, 404);
    assert.equal((await get(`${url}00000000-0000-4000-8000-000000000000/`)).statusCode, 404);
  });

  it('answers 405 for another method on a collection action, not a person-id 400', async () => {
    const cases: [string, string][] = [
      ['GET', 'bulk_delete/'],
      ['DELETE', 'activity/'],
      ['PATCH', 'values'],
      ['DELETE', 'cohorts/'],
      ['PATCH', 'deletion_status/'],
    ];
    for (const [method, path] of cases) {
      const res = await ctx.app.inject({
        method: method as 'GET',
        url: `${url}${path}`,
        headers: tenant.headers,
        payload: method === 'PATCH' ? { properties: {} } : undefined,
      });
      assert.equal(res.statusCode, 405, `${method} ${path}: ${res.body}`);
      assert.deepEqual(res.json(), {
        type: 'invalid_request',
        code: 'method_not_allowed',
        detail: `Method "${method}" not allowed.`,
        attr: null,
      });
    }
  });

  it('renders CSV for format=csv and Accept: text/csv', async () => {
    const res = await get(`${url}?format=csv&limit=2`);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/csv/);
    const lines = res.body.trim().split('\n');
    assert.equal(lines.length, 3);
    // persons[5] (no distinct ids) and persons[4]: the header is the sorted union of columns.
    assert.equal(lines[0], 'created_at,distinct_ids.0,id,name,properties.email,properties.username,uuid');
    assert.equal(lines[1], `2026-01-06T00:00:00.000Z,,${persons[5].id},${persons[5].id},,,${persons[5].uuid}`);
    const accept = await get(`${url}${persons[0].id}/`, { ...tenant.headers, accept: 'text/csv' });
    assert.match(String(accept.headers['content-type']), /^text\/csv/);
    assert.equal(
      accept.body.split('\n')[0],
      'created_at,distinct_ids.0,distinct_ids.1,id,name,properties.email,properties.name,uuid',
    );
    assert.equal((await get(`${url}?format=json`)).json().count, 6);
  });

  it('streams every matching person as CSV without a limit', async () => {
    const res = await get(`${url}?format=csv`);
    assert.equal(res.statusCode, 200, res.body);
    const lines = res.body.trim().split('\n');
    assert.equal(lines.length, 7);
    assert.ok(lines[6].includes(persons[0].uuid));
    const filtered = await get(`${url}?format=csv&search=bob`);
    assert.equal(filtered.body.trim().split('\n').length, 2);
    const none = await get(`${url}?format=csv&search=nobody-at-all`);
    assert.equal(none.statusCode, 200);
    assert.equal(none.body, '');
  });

  it("streams across keyset chunks, with a header of every person's columns", async () => {
    const project = await makeProject(ctx.deps.db, tenant.organization);
    await sql`insert into persons (team_id, uuid, properties, created_at)
      select ${project.id}::integer, gen_random_uuid(), jsonb_build_object('n', g), '2026-01-01T00:00:00Z'::timestamptz + g * interval '1 second'
      from generate_series(1, 2500) g`.execute(ctx.deps.db);
    // Only the oldest person (the last chunk) has these columns.
    await sql`update persons set properties = properties || '{"deep": {"x": [true, null]}}'::jsonb
      where team_id = ${project.id}::integer and properties ->> 'n' = '1'`.execute(ctx.deps.db);
    const res = await get(`/api/projects/${project.id}/persons/?format=csv`);
    assert.equal(res.statusCode, 200);
    const lines = res.body.trim().split('\n');
    assert.equal(lines.length, 2501);
    assert.equal(lines[0], 'created_at,id,name,properties.deep.x.0,properties.deep.x.1,properties.n,uuid');
    assert.ok(lines[1].includes(',,,2500,'), lines[1]);
    assert.ok(lines[2500].includes(',True,,1,'), lines[2500]);
  });

  it('rejects a format other than csv or json', async () => {
    for (const path of [`${url}?format=xml`, `${url}${persons[0].id}/?format=xml`]) {
      const res = await get(path);
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().attr, 'format');
    }
  });

  it("never shows another project's persons", async () => {
    const otherPerson = (await get(`/api/projects/${other.project.id}/persons/`, other.headers)).json().results[0];
    assert.equal((await get(`${url}${otherPerson.id}/`)).statusCode, 404);
    assert.equal((await get(`${url}${otherPerson.uuid}/`)).statusCode, 404);
    assert.equal((await get(`/api/projects/${other.project.id}/persons/`)).statusCode, 403);
    // A second project of the same organization holds none of the first one's persons.
    const second = await makeProject(ctx.deps.db, tenant.organization);
    const res = await get(`/api/projects/${second.id}/persons/`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().count, 0);
    assert.equal((await get(`/api/projects/${second.id}/persons/${persons[0].id}/`)).statusCode, 404);
  });

  it('needs person:read', async () => {
    const member = await makeTenantMember(ctx.deps.db, tenant, 1, ['cohort:read']);
    const res = await get(url, member.headers);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().detail, "API key missing required scope 'person:read'");
    const reader = await makeKey(ctx.deps.db, tenant.owner, { scopes: ['person:read'] });
    assert.equal((await get(url, bearer(reader))).statusCode, 200);
  });

  it('folds many pending count deltas into the team counter and stays exact', async () => {
    const project = await makeProject(ctx.deps.db, tenant.organization);
    for (let i = 0; i < 1010; i++) {
      await sql`insert into persons (team_id, uuid) values (${project.id}::integer, gen_random_uuid())`.execute(
        ctx.deps.db,
      );
    }
    const pending = async () =>
      Number(
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from person_count_deltas where team_id = ${project.id}::integer`.execute(
            ctx.deps.db,
          )
        ).rows[0].n,
      );
    assert.equal(await pending(), 1010);
    assert.equal((await get(`/api/projects/${project.id}/persons/?limit=1`)).json().count, 1010);
    assert.equal(await pending(), 0);
    await sql`delete from persons where team_id = ${project.id}::integer and id in (select id from persons where team_id = ${project.id}::integer limit 10)`.execute(
      ctx.deps.db,
    );
    assert.equal((await get(`/api/projects/${project.id}/persons/?limit=1`)).json().count, 1000);
    const team = await ctx.deps.db
      .selectFrom('teams')
      .select('person_count')
      .where('id', '=', project.id)
      .executeTakeFirstOrThrow();
    assert.equal(team.person_count, 1010);
  });

  it('counts an unfiltered list from the maintained counter, exact after inserts and deletes', async () => {
    const extra = await makePerson(ctx.deps.db, tenant.project.id, {
      distinctIds: ['temp'],
      createdAt: '2025-01-01T00:00:00Z',
    });
    assert.equal((await get(url)).json().count, 7);
    await ctx.deps.db
      .deleteFrom('persons')
      .where('team_id', '=', tenant.project.id)
      .where('id', '=', extra.id)
      .execute();
    assert.equal((await get(url)).json().count, 6);
    assert.equal((await get(`/api/projects/${other.project.id}/persons/`, other.headers)).json().count, 1);
  });
});
