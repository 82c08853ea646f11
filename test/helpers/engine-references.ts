// References for the two-engine views, computed here from a generated world (insight-arbitraries.ts)
// by the semantics the engines implement, for worlds in UTC (a world's day d is 2024-01-01 + d).
import type { World } from './insight-arbitraries.ts';

/** A world event with its time in minutes since the first day and its place in the world's order (its id's). */
interface Timed {
  person: number;
  event: string;
  time: number;
  order: number;
}

function eventsOf(world: World, person: number, fromDay: number, toDay: number): Timed[] {
  return world.events
    .map((event, order) => ({ ...event, order, time: event.day * 1440 + event.minute }))
    .filter((event) => event.person % world.persons.length === person && event.day >= fromDay && event.day <= toDay)
    .sort((x, y) => x.time - y.time || x.order - y.order);
}

/** How far a person got in an ordered funnel, and when (minutes) they first reached each step. */
export interface ReferenceReach {
  steps: number;
  reached: (number | null)[];
}

/**
 * Ordered funnel reach, by person index: every event of step 1 in the range starts an attempt that
 * takes, for each next step, the person's first later event of it; the attempt reaches the steps
 * taken within `windowMinutes` of its start. A person's steps are their best attempt's; a step's
 * first reach is the earliest time any attempt reached it.
 */
export function referenceReach(
  world: World,
  funnel: { steps: string[]; windowMinutes: number; fromDay: number; toDay: number },
): Map<number, ReferenceReach> {
  const { steps, windowMinutes } = funnel;
  const answer = new Map<number, ReferenceReach>();
  world.persons.forEach((_, person) => {
    const events = eventsOf(world, person, funnel.fromDay, funnel.toDay).filter((event) => steps.includes(event.event));
    let best = 0;
    const reached: (number | null)[] = steps.map(() => null);
    const earliest = (k: number, time: number) => {
      const known = reached[k];
      reached[k] = known === null ? time : Math.min(known, time);
    };
    events.forEach((start, first) => {
      if (start.event !== steps[0]) return;
      earliest(0, start.time);
      let at = first;
      let got = 1;
      for (let k = 1; k < steps.length; k++) {
        const next = events.findIndex((event, j) => j > at && event.event === steps[k]);
        if (next < 0 || events[next].time > start.time + windowMinutes) break;
        earliest(k, events[next].time);
        at = next;
        got += 1;
      }
      best = Math.max(best, got);
    });
    if (best > 0) answer.set(person, { steps: best, reached });
  });
  return answer;
}

export const LIFECYCLE_STATUSES = ['new', 'returning', 'resurrecting', 'dormant'] as const;

/**
 * Daily lifecycle counts, keyed `${status} ${day}`: over the range's days and the day before, a
 * person active on day d is returning if also active on d-1, else new when d is their first active
 * day and the day they were created, else resurrecting; a person active on d-1 but not d is dormant.
 */
export function referenceLifecycle(
  world: World,
  lifecycle: { event: string; fromDay: number; toDay: number },
): Map<string, number> {
  const counts = new Map<string, number>();
  const count = (status: string, day: number) =>
    counts.set(`${status} ${day}`, (counts.get(`${status} ${day}`) ?? 0) + 1);
  world.persons.forEach((person, index) => {
    const active = new Set(
      eventsOf(world, index, lifecycle.fromDay - 1, lifecycle.toDay)
        .filter((event) => event.event === lifecycle.event)
        .map((event) => Math.floor(event.time / 1440)),
    );
    for (let day = lifecycle.fromDay; day <= lifecycle.toDay; day++) {
      const earlier = [...active].filter((d) => d < day);
      const previous = earlier.length ? Math.max(...earlier) : null;
      if (active.has(day)) {
        if (previous === day - 1) count('returning', day);
        else if (previous === null && person.createdDay === day) count('new', day);
        else count('resurrecting', day);
      } else if (active.has(day - 1)) {
        count('dormant', day);
      }
    }
  });
  return counts;
}
