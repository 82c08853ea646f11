// Generated small worlds for the agreement properties: a few persons with events over ten days,
// written into a project of their own, and the persons a link lists.
import fc from 'fast-check';
import type { Db } from '../../src/db/database.ts';
import type { AnalyticsContext } from './analytics-factories.ts';
import { makeEvent, setTimezone } from './analytics-factories.ts';
import { makeProject, makePerson } from './factories.ts';
import { followLink } from './insights.ts';

export const EVENT_NAMES = ['a', 'b', 'c'];
// '/docs/' is the item '/docs' (one trailing slash goes), '//' the item '/'.
const PAGES = ['/home', '/pricing', '/docs', '/docs/', '//'];

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
  persons: fc.array(fc.record({ createdDay: fc.integer({ min: 0, max: 9 }), plan: fc.constantFrom('free', 'pro') }), {
    minLength: 1,
    maxLength: 6,
  }),
  events: fc.array(
    fc.record({
      person: fc.nat(),
      event: fc.constantFrom(...EVENT_NAMES),
      day: fc.integer({ min: 0, max: 9 }),
      // Minutes of the day, coarse enough that sessions (30 minutes) sometimes hold several events.
      minute: fc.integer({ min: 0, max: 8 }).map((slot) => slot * 15),
      color: fc.constantFrom('red', 'blue', null),
    }),
    { minLength: 4, maxLength: 30 },
  ),
});

const at = (day: number, minute = 0) => new Date(Date.UTC(2024, 0, 1 + day, 0, minute)).toISOString();

/** The world in a new project of the tenant's organization; answers the project id. */
export async function writeWorld(a: AnalyticsContext, world: World): Promise<number> {
  const db: Db = a.ctx.deps.db;
  const project = await makeProject(db, a.tenant.organization);
  await setTimezone(db, project.id, world.timezone);
  const persons = [];
  for (const [index, person] of world.persons.entries()) {
    persons.push(
      await makePerson(db, project.id, {
        distinctIds: [`p${index}`],
        properties: { plan: person.plan },
        createdAt: at(person.createdDay),
      }),
    );
  }
  for (const event of world.events) {
    const person = persons[event.person % persons.length];
    const properties: Record<string, string> = {
      $current_url: `https://x.io${PAGES[(event.minute / 15) % PAGES.length]}`,
    };
    if (event.color) properties.color = event.color;
    await makeEvent(
      db,
      project.id,
      person,
      event.event === 'a' ? '$pageview' : event.event,
      at(event.day, event.minute),
      properties,
    );
  }
  return project.id;
}

/** The persons view a link leads to, as a list of `{uuid, appearances?}`; every world fits one page. */
export async function linkedRows(
  a: AnalyticsContext,
  url: string,
): Promise<{ uuid: string; appearances?: number[] }[]> {
  const res = await followLink(a, url);
  if (res.status !== 200) throw new Error(`${url} → ${res.status} ${res.text}`);
  if (res.body.next) throw new Error(`${url} has a second page`);
  if (res.body.results) return res.body.results[0].people.map((person: { uuid: string }) => ({ uuid: person.uuid }));
  return res.body.result.map((row: { person: { uuid: string }; appearances: number[] }) => ({
    uuid: row.person.uuid,
    appearances: row.appearances,
  }));
}

export async function linkedCount(a: AnalyticsContext, url: string): Promise<number> {
  return (await linkedRows(a, url)).length;
}

/** Fails with the point that disagrees. */
export function agree(what: string, number: number, persons: number): void {
  if (number !== persons) throw new Error(`${what}: the insight says ${number}, its persons view lists ${persons}`);
}

export const dayText = (day: number) => at(day).slice(0, 10);

const trimSlash = (url: string) => (url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url);

/** Path edges of a world by the paths semantics, computed here: `source > target` → persons. */
export function referenceEdges(
  world: World,
  options: { stepLimit: number; pageviewsOnly: boolean; startPoint: string | null; endPoint: string | null },
): Record<string, number> {
  const persons = new Map<string, Set<number>>();
  world.persons.forEach((_, index) => {
    const items = world.events
      .map((event, order) => ({ ...event, order }))
      .filter(
        (event) => event.person % world.persons.length === index && (!options.pageviewsOnly || event.event === 'a'),
      )
      .sort((x, y) => x.day * 1440 + x.minute - (y.day * 1440 + y.minute) || x.order - y.order)
      .map((event) => ({
        time: event.day * 1440 + event.minute,
        item: event.event === 'a' ? trimSlash(`https://x.io${PAGES[(event.minute / 15) % PAGES.length]}`) : event.event,
      }));
    const sessions: string[][] = [];
    items.forEach((entry, i) => {
      if (i === 0 || entry.time - items[i - 1].time >= 30) sessions.push([]);
      const session = sessions[sessions.length - 1];
      if (session[session.length - 1] !== entry.item) session.push(entry.item);
    });
    for (let path of sessions) {
      if (options.startPoint) {
        const at = path.indexOf(options.startPoint);
        if (at < 0) continue;
        path = path.slice(at);
      }
      if (options.endPoint) {
        const at = path.indexOf(options.endPoint);
        if (at < 0) continue;
        path = path.slice(0, at + 1);
      }
      path =
        options.endPoint && !options.startPoint ? path.slice(-options.stepLimit) : path.slice(0, options.stepLimit);
      for (let i = 1; i < path.length; i++) {
        const edge = `${i}_${path[i - 1]} > ${i + 1}_${path[i]}`;
        if (!persons.has(edge)) persons.set(edge, new Set());
        persons.get(edge)?.add(index);
      }
    }
  });
  return Object.fromEntries([...persons].map(([edge, set]) => [edge, set.size]));
}
