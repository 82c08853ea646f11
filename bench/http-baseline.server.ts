// The HTTP bench's baseline: a hand-written persons service on plain Fastify and `pg`, no herd code,
// serving the URLs the bench loads over the same database with the same JSON. It does what a
// small service written by hand would: the API keys' digests (with the projects each may read)
// kept in memory from the start, so a request runs one query (two for a page and its count, in
// parallel); an exact count(*) for lists; one OR'ed condition for search. No logging, no hooks:
// its /_health is a bare Fastify hello world.
//   BASELINE_DATABASE_URL=postgres://… PORT=8123 node bench/http-baseline.server.ts
//   PORT=8123 node bench/http-baseline.server.ts --hello     (only /_health, no database)
import crypto from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';

const INT8_OID = 20;
pg.types.setTypeParser(INT8_OID, Number);

const app = Fastify();
app.get('/_health', async () => ({ status: 'ok' }));

interface KeyGrant {
  projects: Set<number>;
}

interface PersonRow {
  id: number;
  uuid: string;
  properties: Record<string, unknown>;
  created_at: Date;
  distinct_ids: string[];
}

const NAMING_KEYS = ['email', 'Email', '$email', 'name', 'Name', 'username', 'Username', 'UserName'];
const ANONYMOUS = /^([a-z0-9]+-){4}([a-z0-9]+)$/;

function displayName(row: PersonRow): string {
  for (const key of NAMING_KEYS) {
    const value = row.properties[key];
    if (value !== undefined && value !== null && value !== '')
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
  return row.distinct_ids.find((id) => !ANONYMOUS.test(id)) ?? row.distinct_ids[0] ?? String(row.id);
}

const toWire = (row: PersonRow) => ({
  id: row.id,
  name: displayName(row),
  distinct_ids: row.distinct_ids,
  properties: row.properties,
  created_at: row.created_at.toISOString(),
  uuid: row.uuid,
});

const PERSON_COLUMNS = `p.id, p.uuid, p.properties, p.created_at,
  array(select d.distinct_id from person_distinct_ids d where d.team_id = p.team_id and d.person_id = p.id order by d.id) as distinct_ids`;

function fail(reply: FastifyReply, status: number, type: string, code: string, detail: string) {
  return reply.code(status).send({ type, code, detail, attr: null });
}

async function servePersons(pool: pg.Pool, grants: Map<string, KeyGrant>) {
  /** The project id when the request's key may read it; otherwise the error has been sent. */
  const authorize = (request: FastifyRequest, reply: FastifyReply): number | null => {
    const bearer = /^bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const grant = bearer && grants.get(crypto.createHash('sha256').update(bearer).digest('hex'));
    if (!grant) {
      fail(reply, 401, 'authentication_error', 'authentication_failed', 'Invalid key.');
      return null;
    }
    const projectId = Number((request.params as { project_id: string }).project_id);
    if (!grant.projects.has(projectId)) {
      fail(reply, 403, 'authentication_error', 'permission_denied', 'You do not have access to this project.');
      return null;
    }
    return projectId;
  };

  app.get('/api/projects/:project_id/persons/:id/', async (request, reply) => {
    const projectId = authorize(request, reply);
    if (projectId === null) return reply;
    const id = (request.params as { id: string }).id;
    if (!/^\d{1,15}$/.test(id)) return fail(reply, 404, 'invalid_request', 'not_found', 'Not found.');
    const { rows } = await pool.query<PersonRow>(
      `select ${PERSON_COLUMNS} from persons p where p.team_id = $1 and p.id = $2`,
      [projectId, id],
    );
    return rows.length === 0 ? fail(reply, 404, 'invalid_request', 'not_found', 'Not found.') : toWire(rows[0]);
  });

  app.get('/api/projects/:project_id/persons/', async (request, reply) => {
    const projectId = authorize(request, reply);
    if (projectId === null) return reply;
    const query = request.query as { distinct_id?: string; search?: string; limit?: string; offset?: string };
    const limit = Math.min(Number(query.limit ?? 100), 1000);
    const offset = Number(query.offset ?? 0);
    let count: number;
    let rows: PersonRow[];
    if (query.distinct_id !== undefined) {
      // A distinct id names at most one person: the page is the count.
      ({ rows } = await pool.query<PersonRow>(
        `select ${PERSON_COLUMNS} from person_distinct_ids x join persons p on p.team_id = x.team_id and p.id = x.person_id
         where x.team_id = $1 and x.distinct_id = $2`,
        [projectId, query.distinct_id],
      ));
      count = rows.length;
    } else {
      const term = query.search?.trim();
      const params: unknown[] = [projectId];
      let where = 'p.team_id = $1';
      if (term) {
        params.push(`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`, term);
        where += ` and (p.properties ->> 'email' ilike $2 or p.properties ->> 'name' ilike $2
          or p.id in (select person_id from person_distinct_ids where team_id = $1 and distinct_id = $3))`;
      }
      const [counted, page] = await Promise.all([
        pool.query<{ n: number }>(`select count(*) as n from persons p where ${where}`, params),
        pool.query<PersonRow>(
          `select ${PERSON_COLUMNS} from persons p where ${where} order by p.created_at desc, p.id desc limit $${params.length + 1} offset $${params.length + 2}`,
          [...params, limit, offset],
        ),
      ]);
      count = counted.rows[0].n;
      rows = page.rows;
    }
    const link = (at: number) => {
      const url = new URL(request.url, 'http://placeholder');
      url.searchParams.set('limit', String(limit));
      url.searchParams.set('offset', String(at));
      return `${request.protocol}://${request.host}${url.pathname}${url.search}`;
    };
    return {
      count,
      next: offset + limit < count ? link(offset + limit) : null,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
      results: rows.map(toWire),
    };
  });
}

/** Every active user's keys, each with the projects of the organizations the user belongs to. */
async function loadGrants(pool: pg.Pool): Promise<Map<string, KeyGrant>> {
  const { rows } = await pool.query<{
    secure_value: string;
    scopes: string[];
    scoped_teams: number[] | null;
    projects: number[];
  }>(
    `select k.secure_value, k.scopes, k.scoped_teams, array_agg(t.id) as projects
     from personal_api_keys k
     join users u on u.id = k.user_id and u.is_active
     join organization_memberships m on m.user_id = k.user_id
     join teams t on t.organization_id = m.organization_id
     group by k.id`,
  );
  const grants = new Map<string, KeyGrant>();
  for (const row of rows) {
    if (!row.scopes.includes('*') && !row.scopes.includes('person:read')) continue;
    const limited = row.scoped_teams && row.scoped_teams.length > 0 ? new Set(row.scoped_teams) : null;
    grants.set(row.secure_value, { projects: new Set(row.projects.filter((id) => !limited || limited.has(id))) });
  }
  return grants;
}

if (!process.argv.includes('--hello')) {
  const pool = new pg.Pool({
    connectionString: process.env.BASELINE_DATABASE_URL,
    max: Number(process.env.BASELINE_POOL_SIZE ?? 10),
  });
  await servePersons(pool, await loadGrants(pool));
}
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
