// Activity entries of persons, newest first, paged: what changed, by whom, when. Across persons, each
// is named as the persons list names it (e-mail, name, …), and one deleted since says so.
import { useState } from 'preact/hooks';
import { api, ApiError } from '../api/client.ts';
import type { ActivityChange, ActivityEntry, Page, Person } from '../api/types.ts';
import { projectHref } from '../router.ts';
import { ErrorMessage, Loading } from './feedback.tsx';
import { Pager, PAGE_SIZE } from './pager.tsx';
import { useLoad } from './use-load.ts';
import { Time, valueText } from './values.tsx';

const ACTIVITY_LABELS: Record<string, string> = {
  updated: 'Properties updated',
  delete_property: 'Property deleted',
  split_person: 'Split',
  deleted: 'Deleted',
  merged: 'Merged',
};

function changeText(change: ActivityChange): string {
  if (change.action === 'split') return `split from ${valueText(change.after)}`;
  if (change.action === 'merged') return `merged in ${valueText(change.after)}`;
  const before = change.before === null || change.before === undefined ? '(none)' : valueText(change.before);
  const after = change.after === null || change.after === undefined ? '(none)' : valueText(change.after);
  return `${change.field ?? ''}: ${before} → ${after}`;
}

/** A person an entry names: its display name, or null once it is deleted. */
type PersonName = { name: string } | null;

/** The names of the persons of a page of entries, one request a person (a page names at most 25). */
async function loadNames(projectId: number, ids: string[]): Promise<Map<string, PersonName>> {
  const names = new Map<string, PersonName>();
  await Promise.all(
    ids.map(async (id) => {
      try {
        const person = await api<Person>(`/api/projects/${projectId}/persons/${encodeURIComponent(id)}/`);
        names.set(id, { name: person.name });
      } catch (error) {
        // Gone: deleted since (another failure leaves the entry named by its id).
        if (error instanceof ApiError && error.status === 404) names.set(id, null);
      }
    }),
  );
  return names;
}

function PersonLink({ projectId, id, known }: { projectId: number; id: string; known: PersonName | undefined }) {
  const target = projectHref(projectId, 'persons', id);
  if (known === null)
    return (
      <a href={target} class="deleted-person">
        Deleted person {id}
      </a>
    );
  return <a href={target}>{known ? known.name : `Person ${id}`}</a>;
}

export function ActivityList({
  path,
  projectId,
  showPerson,
  caption,
}: {
  path: string;
  projectId: number;
  showPerson: boolean;
  caption: string;
}) {
  const [offset, setOffset] = useState(0);
  const entries = useLoad(
    () => api<Page<ActivityEntry>>(path, { query: { limit: PAGE_SIZE, offset } }),
    [path, offset],
  );
  const ids = showPerson && entries.data ? [...new Set(entries.data.results.map((entry) => entry.item_id))] : [];
  const names = useLoad(() => loadNames(projectId, ids), [projectId, ids.join(',')]);
  if (entries.error) return <ErrorMessage error={entries.error} />;
  if (!entries.data) return <Loading what="activity" />;
  if (entries.data.count === 0) return <p class="muted">No activity yet.</p>;
  return (
    <>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            {showPerson ? <th scope="col">Person</th> : null}
            <th scope="col">By</th>
            <th scope="col">Changes</th>
          </tr>
        </thead>
        <tbody>
          {entries.data.results.map((entry) => (
            <tr key={entry.id}>
              <td>
                <Time iso={entry.created_at} />
              </td>
              <td>{ACTIVITY_LABELS[entry.activity] ?? entry.activity}</td>
              {showPerson ? (
                <td>
                  <PersonLink projectId={projectId} id={entry.item_id} known={names.data?.get(entry.item_id)} />
                </td>
              ) : null}
              <td>{entry.user ? entry.user.email : 'capture'}</td>
              <td>
                {entry.detail.changes && entry.detail.changes.length > 0 ? (
                  <ul class="changes">
                    {entry.detail.changes.map((change, index) => (
                      <li key={index}>{changeText(change)}</li>
                    ))}
                  </ul>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager label={caption} count={entries.data.count} offset={offset} onOffset={setOffset} />
    </>
  );
}
