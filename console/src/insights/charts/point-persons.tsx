// The persons behind a point, page by page through its persons link; when the point's number
// counts persons who have been deleted since, the list says how many (they cannot be listed).
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api/client.ts';
import type { Person } from '../../api/types.ts';
import { ErrorMessage, Loading } from '../../components/feedback.tsx';
import { useAction } from '../../components/use-load.ts';
import { PersonsTable } from '../../screens/persons.tsx';
import { deletedSince, personsPage, personsPath, type InsightPoint } from './points.ts';

interface Listed {
  persons: Person[];
  missing: number;
  next: string | null;
}

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;

export function PointPersons({ point, projectId }: { point: InsightPoint; projectId: number }) {
  const [listed, setListed] = useState<Listed | null>(null);
  const action = useAction();
  // The answer of a point chosen before this one is dropped.
  const ticket = useRef(0);
  const path = personsPath(point.url, projectId, location.origin);
  const load = (from: string, previous: Listed | null) => {
    const mine = ++ticket.current;
    return action.run(async () => {
      const page = personsPage(await api<unknown>(from), point.appearance);
      if (mine !== ticket.current) return;
      setListed({
        persons: [...(previous?.persons ?? []), ...page.persons],
        missing: (previous?.missing ?? 0) + page.missing,
        next: page.next ? personsPath(page.next, projectId, location.origin) : null,
      });
    });
  };
  useEffect(() => {
    setListed(null);
    if (path) void load(path, null);
    // A new point: its first page.
  }, [path, point.appearance]);
  if (!path) {
    return (
      <p class="error" role="alert">
        No persons link for {point.title}.
      </p>
    );
  }
  const complete = listed !== null && listed.next === null;
  const deleted = listed ? deletedSince(point, listed.persons.length, listed.missing, complete) : 0;
  return (
    <section aria-labelledby="point-persons-heading" class="panel">
      <h2 id="point-persons-heading">Persons behind {point.title}</h2>
      <ErrorMessage error={action.error} />
      {deleted > 0 ? (
        <p class="notice-deleted" role="note">
          {complete
            ? `This count includes ${plural(deleted, 'person', 'persons')} deleted since; ${deleted === 1 ? 'it is' : 'they are'} not listed.`
            : `${plural(deleted, 'person', 'persons')} of those counted so far ${deleted === 1 ? 'has' : 'have'} been deleted since and ${deleted === 1 ? 'is' : 'are'} not listed.`}
        </p>
      ) : null}
      {listed ? (
        listed.persons.length === 0 ? (
          <p class="muted">No persons{deleted > 0 ? ' left' : ''}.</p>
        ) : (
          <PersonsTable persons={listed.persons} projectId={projectId} caption={`Persons behind ${point.title}`} />
        )
      ) : action.busy ? (
        <Loading what="persons" />
      ) : null}
      {listed?.next ? (
        <button type="button" disabled={action.busy} onClick={() => listed.next && load(listed.next, listed)}>
          More persons
        </button>
      ) : null}
    </section>
  );
}
