// Persons and events for the analytical views, written straight into the tables with explicit
// timestamps (capture is not under test here).
import crypto from 'node:crypto';
import type { Config } from '../../src/config.ts';
import type { Db } from '../../src/db/database.ts';
import type { JsonObject } from '../../src/db/schema.ts';
import { setupTestApp, TestClock, type TestContext } from './app.ts';
import { makeTenant, type Tenant, type TestPerson } from './factories.ts';
import { eventKey } from '../../src/db/person-key.ts';
import { deletePersonRows } from '../../src/modules/persons/persons.repository.ts';

export async function makeEvent(
  db: Db,
  teamId: number,
  person: TestPerson,
  event: string,
  timestamp: string,
  properties: JsonObject = {},
): Promise<void> {
  await db
    .insertInto('events')
    .values({
      team_id: teamId,
      uuid: crypto.randomUUID(),
      event,
      distinct_id: person.distinctId,
      person_id: person.id,
      person_key: eventKey(person.id, person.distinctId),
      properties: JSON.stringify(properties),
      person_properties: JSON.stringify(person.properties),
      timestamp: new Date(timestamp),
    })
    .execute();
}

/** Many events of one person: [event, timestamp, properties?] triples. */
export async function makeEvents(
  db: Db,
  teamId: number,
  person: TestPerson,
  events: [string, string, JsonObject?][],
): Promise<void> {
  for (const [event, timestamp, properties] of events)
    await makeEvent(db, teamId, person, event, timestamp, properties ?? {});
}

export async function setTimezone(db: Db, teamId: number, timezone: string): Promise<void> {
  await db.updateTable('teams').set({ timezone }).where('id', '=', teamId).execute();
}

export async function deletePerson(db: Db, teamId: number, person: TestPerson): Promise<void> {
  await deletePersonRows(db, teamId, [person.id]);
}

export interface ViewResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  headers: Record<string, unknown>;
}

export interface AnalyticsContext {
  ctx: TestContext;
  tenant: Tenant;
  teamId: number;
  /** GET a view path (after `/persons/`) with query params. */
  get(view: string, params?: Record<string, unknown>, teamId?: number): Promise<ViewResponse>;
  post(view: string, body: unknown, params?: Record<string, unknown>): Promise<ViewResponse>;
  /** Follows an absolute `next` link. */
  follow(url: string): Promise<ViewResponse>;
}

/** Query parameters, structured ones JSON-encoded. */
export function queryString(params: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    search.set(key, typeof value === 'string' ? value : JSON.stringify(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** A request of the app, its body parsed when it is JSON. */
export async function sendJson(
  app: TestContext['app'],
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<ViewResponse> {
  const res = await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
  let parsed: unknown;
  try {
    parsed = res.json();
  } catch {
    parsed = null;
  }
  return { status: res.statusCode, body: parsed, text: res.body, headers: res.headers as Record<string, unknown> };
}

/** An app whose clock stands at `now`, one tenant, and request helpers for the views. */
export async function setupAnalytics(
  now = '2024-01-20T12:00:00Z',
  config: Partial<Config> = {},
): Promise<AnalyticsContext> {
  const ctx = await setupTestApp({ clock: new TestClock(new Date(now)), config: { rateLimit: false, ...config } });
  const tenant = await makeTenant(ctx.deps.db);
  const teamId = tenant.project.id;
  const send = (method: 'GET' | 'POST', url: string, body?: unknown) =>
    sendJson(ctx.app, method, url, tenant.headers, body);
  return {
    ctx,
    tenant,
    teamId,
    get: (view, params = {}, team = teamId) =>
      send('GET', `/api/projects/${team}/persons/${view}/${queryString(params)}`),
    post: (view, body, params = {}) =>
      send('POST', `/api/projects/${teamId}/persons/${view}/${queryString(params)}`, body),
    follow: (url) => {
      const parsed = new URL(url);
      return send('GET', `${parsed.pathname}${parsed.search}`);
    },
  };
}

/** The uuids of the people of a view's first result, sorted, to compare sets. */
export function uuidsOf(body: { results: { people: { uuid: string }[] }[] }): string[] {
  return body.results[0].people.map((person) => person.uuid).sort();
}

export const sortedUuids = (...persons: TestPerson[]) => persons.map((person) => person.uuid).sort();
