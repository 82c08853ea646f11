// A person's events, newest first: name, time and the properties that say most about each; every
// property on demand; paged by the API's keyset cursor (older pages by `next`, newer by going back).
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { EventItem, EventPage } from '../api/types.ts';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { useLoad } from '../components/use-load.ts';
import { Time, valueText } from '../components/values.tsx';

const EVENTS_PAGE = 10;
/** The properties shown beside an event when it has them, in this order; else its first own ones. */
const KEY_PROPERTIES = ['$current_url', '$screen_name', '$pathname', '$browser', '$os', '$device_type', '$referrer'];
const SHOWN = 3;

function keyProperties(event: EventItem): [string, unknown][] {
  const known = KEY_PROPERTIES.filter((key) => event.properties[key] !== undefined);
  const own = Object.keys(event.properties)
    .filter((key) => !key.startsWith('$'))
    .sort();
  return [...known, ...own].slice(0, SHOWN).map((key) => [key, event.properties[key]]);
}

/** The cursor a `next` link carries (the API's own link; only its cursor is reused). */
function cursorOf(next: string): string | null {
  try {
    return new URL(next).searchParams.get('cursor');
  } catch {
    return null;
  }
}

export function PersonEvents({ projectId, personId }: { projectId: number; personId: number }) {
  // The cursors of the pages shown so far: the last is the current page's (null: the newest).
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const cursor = cursors[cursors.length - 1];
  const events = useLoad(
    () =>
      api<EventPage>(`/api/projects/${projectId}/events/`, {
        query: { person_id: personId, limit: EVENTS_PAGE, cursor },
      }),
    [projectId, personId, cursor],
  );
  const next = events.data?.next ? cursorOf(events.data.next) : null;
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Events</h2>
      <ErrorMessage error={events.error} />
      {!events.data ? (
        events.loading ? (
          <Loading what="the events" />
        ) : null
      ) : events.data.results.length === 0 && cursors.length === 1 ? (
        <p class="muted">No events of this person yet.</p>
      ) : (
        <>
          <table>
            <caption>Events of this person, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Time</th>
                <th scope="col">Key properties</th>
                <th scope="col">All properties</th>
              </tr>
            </thead>
            <tbody>
              {events.data.results.map((event) => (
                <tr key={event.id}>
                  <td>{event.event}</td>
                  <td>
                    <Time iso={event.timestamp} />
                  </td>
                  <td>
                    <dl class="facts compact">
                      {keyProperties(event).flatMap(([key, value]) => [
                        <dt key={`k${key}`}>{key}</dt>,
                        <dd key={`v${key}`}>{valueText(value)}</dd>,
                      ])}
                    </dl>
                  </td>
                  <td>
                    <details>
                      <summary>Properties of {event.event}</summary>
                      <dl class="facts">
                        {Object.keys(event.properties)
                          .sort()
                          .flatMap((key) => [
                            <dt key={`k${key}`}>{key}</dt>,
                            <dd key={`v${key}`}>{valueText(event.properties[key])}</dd>,
                          ])}
                      </dl>
                    </details>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {cursors.length > 1 || next ? (
            <nav class="pager" aria-label="Events pages">
              <button
                type="button"
                disabled={cursors.length === 1}
                onClick={() => setCursors((list) => list.slice(0, -1))}
              >
                Newer events
              </button>
              <span aria-live="polite">Page {cursors.length}</span>
              <button type="button" disabled={!next} onClick={() => next && setCursors((list) => [...list, next])}>
                Older events
              </button>
            </nav>
          ) : null}
        </>
      )}
    </section>
  );
}
