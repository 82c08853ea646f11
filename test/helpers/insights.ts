// Request helpers for the insight endpoints and the persons links they answer.
import type { JsonObject } from '../../src/db/schema.ts';
import { makeEvents, queryString, sendJson, type AnalyticsContext, type ViewResponse } from './analytics-factories.ts';
import { makePerson, type TestPerson } from './factories.ts';

const send = (
  a: AnalyticsContext,
  method: 'GET' | 'POST',
  url: string,
  body?: unknown,
  headers = a.tenant.headers,
): Promise<ViewResponse> => sendJson(a.ctx.app, method, url, headers, body);

/** GET an insight with query parameters (structured ones JSON-encoded). */
export const getInsight = (
  a: AnalyticsContext,
  name: string,
  params: Record<string, unknown>,
  teamId: number = a.teamId,
  headers = a.tenant.headers,
) => send(a, 'GET', `/api/projects/${teamId}/insights/${name}/${queryString(params)}`, undefined, headers);

/** POST an insight with a JSON body. */
export const postInsight = (a: AnalyticsContext, name: string, body: unknown, teamId: number = a.teamId) =>
  send(a, 'POST', `/api/projects/${teamId}/insights/${name}/`, body);

/** GET a persons link of an insight (a path of the API) with the same key. */
export const followLink = (a: AnalyticsContext, url: string) => send(a, 'GET', url);

/** The uuids a persons link lists (the whole list: the tests keep under one page). */
export async function linkedUuids(a: AnalyticsContext, url: string): Promise<string[]> {
  const res = await followLink(a, url);
  if (res.status !== 200) throw new Error(`${url} → ${res.status} ${res.text}`);
  const people: { uuid: string }[] = res.body.results
    ? res.body.results[0].people
    : res.body.result.map((row: { person: { uuid: string } }) => row.person);
  return people.map((person) => person.uuid).sort();
}

/** A person's events (`[event, timestamp, properties?]`), with the person's own properties and creation time when they matter. */
export type Journey =
  | [string, string, JsonObject?][]
  | { events: [string, string, JsonObject?][]; properties?: JsonObject; createdAt?: string };

/** One person per journey, whose distinct id is the journey's name, with its events. */
export async function makeJourneys<K extends string>(
  a: AnalyticsContext,
  journeys: Record<K, Journey>,
): Promise<Record<K, TestPerson>> {
  const persons = {} as Record<K, TestPerson>;
  for (const [name, journey] of Object.entries(journeys) as [K, Journey][]) {
    const { events, ...options } = Array.isArray(journey) ? { events: journey } : journey;
    persons[name] = await makePerson(a.ctx.deps.db, a.teamId, { distinctIds: [name], ...options });
    await makeEvents(a.ctx.deps.db, a.teamId, persons[name], events);
  }
  return persons;
}
