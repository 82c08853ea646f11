// Generated small worlds for the agreement properties: a few persons with events over ten days,
// written into a project of their own, and the persons a link lists.
import fc from 'fast-check';
import type { Db } from '../../src/db/database.ts';
import type { AnalyticsContext } from './analytics-factories.ts';
import { makeEvent, makePerson, setTimezone } from './analytics-factories.ts';
import { makeProject } from './factories.ts';
import { followLink } from './insights.ts';

export const EVENT_NAMES = ['a', 'b', 'c'];
const PAGES = ['/home', '/pricing', '/docs'];

export interface WorldEvent {
  person: number;
  event: string;
  day: number;
  minute: number;
  color: string | null;
}

export interface World {
  timezone: string;
  persons: { createdDay: number; plan: string }[];
  events: WorldEvent[];
}

export const worldArbitrary: fc.Arbitrary<World> = fc.record({
  timezone: fc.constantFrom('UTC', 'America/New_York', 'Asia/Tokyo'),
  persons: fc.array(fc.record({ createdDay: fc.integer({ min: 0, max: 9 }), plan: fc.constantFrom('free', 'pro') }), { minLength: 1, maxLength: 6 }),
  events: fc.array(fc.record({
    person: fc.nat(),
    event: fc.constantFrom(...EVENT_NAMES),
    day: fc.integer({ min: 0, max: 9 }),
    // Minutes of the day, coarse enough that sessions (30 minutes) sometimes hold several events.
    minute: fc.integer({ min: 0, max: 95 }).map((slot) => slot * 15),
    color: fc.constantFrom('red', 'blue', null),
  }), { minLength: 4, maxLength: 30 }),
});

const at = (day: number, minute = 0) => new Date(Date.UTC(2024, 0, 1 + day, 0, minute)).toISOString();

/** The world in a new project of the tenant's organization; answers the project id. */
export async function writeWorld(a: AnalyticsContext, world: World): Promise<number> {
  const db: Db = a.ctx.deps.db;
  const project = await makeProject(db, a.tenant.organization);
  await setTimezone(db, project.id, world.timezone);
  const persons = [];
  for (const [index, person] of world.persons.entries()) {
    persons.push(await makePerson(db, project.id, { distinctIds: [`p${index}`], properties: { plan: person.plan }, createdAt: at(person.createdDay) }));
  }
  for (const event of world.events) {
    const person = persons[event.person % persons.length];
    const properties: Record<string, string> = { $current_url: `https://x.io${PAGES[(event.minute / 15) % PAGES.length]}` };
    if (event.color) properties.color = event.color;
    await makeEvent(db, project.id, person, event.event === 'a' ? '$pageview' : event.event, at(event.day, event.minute), properties);
  }
  return project.id;
}

/** The persons view a link leads to, as a list of `{uuid, appearances?}`; every world fits one page. */
export async function linkedRows(a: AnalyticsContext, url: string): Promise<{ uuid: string; appearances?: number[] }[]> {
  const res = await followLink(a, url);
  if (res.status !== 200) throw new Error(`${url} → ${res.status} ${res.text}`);
  if (res.body.next) throw new Error(`${url} has a second page`);
  if (res.body.results) return res.body.results[0].people.map((person: { uuid: string }) => ({ uuid: person.uuid }));
  return res.body.result.map((row: { person: { uuid: string }; appearances: number[] }) => ({ uuid: row.person.uuid, appearances: row.appearances }));
}

export async function linkedCount(a: AnalyticsContext, url: string): Promise<number> {
  return (await linkedRows(a, url)).length;
}

/** Fails with the point that disagrees. */
export function agree(what: string, number: number, persons: number): void {
  if (number !== persons) throw new Error(`${what}: the insight says ${number}, its persons view lists ${persons}`);
}

export const dayText = (day: number) => at(day).slice(0, 10);
