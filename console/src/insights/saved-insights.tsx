// Saved insights of the project (`/api/projects/:id/insights/`): save what the screen shows under a
// name, list them newest change first, open, rename and delete them.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { Page, UserBasic } from '../api/types.ts';
import { ErrorMessage, fieldError, formError, Loading, Notice } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useAction, useLoad } from '../components/use-load.ts';
import { Time } from '../components/values.tsx';

export interface SavedInsight {
  id: number;
  short_id: string;
  name: string;
  description: string;
  filters: Record<string, unknown>;
  last_modified_at: string;
  last_modified_by: UserBasic | null;
}

interface Props {
  projectId: number;
  /** The filters of the insight on screen, as a saved insight keeps them. */
  current: () => Record<string, unknown>;
  onOpen: (insight: SavedInsight) => void;
}

const nameOf = (insight: SavedInsight) => insight.name || `Untitled ${insight.short_id}`;

function SavedRow({
  insight,
  base,
  onOpen,
  onChanged,
}: {
  insight: SavedInsight;
  base: string;
  onOpen: () => void;
  onChanged: (message: string) => void;
}) {
  const [mode, setMode] = useState<'view' | 'rename' | 'delete'>('view');
  const [name, setName] = useState(insight.name);
  const action = useAction();
  const label = nameOf(insight);
  const rename = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await api(`${base}${insight.id}/`, { method: 'PATCH', body: { name: name.trim() } });
      setMode('view');
      onChanged(`Renamed ${label} to ${name.trim() || 'no name'}.`);
    });
  };
  const remove = () =>
    action.run(async () => {
      await api(`${base}${insight.id}/`, { method: 'DELETE' });
      onChanged(`Deleted ${label}.`);
    });
  return (
    <tr>
      <th scope="row">
        {mode === 'rename' ? (
          <form class="inline-form" onSubmit={rename} aria-label={`Rename ${label}`}>
            <input aria-label={`New name of ${label}`} value={name} onInput={(e) => setName(e.currentTarget.value)} />
            <button type="submit" disabled={action.busy}>
              Save name
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Cancel
            </button>
          </form>
        ) : (
          <button type="button" class="link" aria-label={`Open ${label}`} onClick={onOpen}>
            {label}
          </button>
        )}
        <ErrorMessage error={action.error} />
      </th>
      <td>
        <Time iso={insight.last_modified_at} />
        {insight.last_modified_by ? ` by ${insight.last_modified_by.email}` : ''}
      </td>
      <td class="row-actions">
        {mode === 'delete' ? (
          <span role="group" aria-label={`Confirm deleting ${label}`}>
            Delete {label}?{' '}
            <button type="button" class="destructive" disabled={action.busy} onClick={() => void remove()}>
              Yes, delete it
            </button>
            <button type="button" onClick={() => setMode('view')}>
              Keep it
            </button>
          </span>
        ) : (
          <>
            <button type="button" aria-label={`Rename ${label}`} onClick={() => setMode('rename')}>
              Rename
            </button>
            <button type="button" aria-label={`Delete ${label}`} onClick={() => setMode('delete')}>
              Delete
            </button>
          </>
        )}
      </td>
    </tr>
  );
}

export function SavedInsights({ projectId, current, onOpen }: Props) {
  const base = `/api/projects/${projectId}/insights/`;
  const [offset, setOffset] = useState(0);
  const [name, setName] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const list = useLoad(() => api<Page<SavedInsight>>(base, { query: { limit: PAGE_SIZE, offset } }), [base, offset]);
  const save = useAction();
  const changed = (text: string) => {
    setMessage(text);
    list.reload();
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void save.run(async () => {
      const saved = await api<SavedInsight>(base, { method: 'POST', body: { name: name.trim(), filters: current() } });
      setName('');
      setOffset(0);
      changed(`Saved ${nameOf(saved)}.`);
    });
  };
  return (
    <section class="panel saved-insights" aria-labelledby="saved-insights-heading">
      <h2 id="saved-insights-heading">Saved insights</h2>
      <form class="inline-form" onSubmit={submit} aria-label="Save this insight">
        <label for="insight-save-name">Name</label>
        <input id="insight-save-name" value={name} maxLength={400} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit" disabled={save.busy}>
          Save this insight
        </button>
      </form>
      <ErrorMessage error={fieldError(save.error, 'name', 'filters')} />
      <ErrorMessage error={formError(save.error, 'name', 'filters')} />
      {message ? <Notice>{message}</Notice> : null}
      <ErrorMessage error={list.error} />
      {list.data ? (
        list.data.count === 0 ? (
          <p class="muted">No saved insights yet.</p>
        ) : (
          <>
            <table>
              <caption>Saved insights, last changed first</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Last changed</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((insight) => (
                  <SavedRow
                    key={`${insight.id}:${insight.last_modified_at}`}
                    insight={insight}
                    base={base}
                    onOpen={() => {
                      setMessage(null);
                      onOpen(insight);
                    }}
                    onChanged={changed}
                  />
                ))}
              </tbody>
            </table>
            <Pager label="Saved insights" count={list.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : list.loading ? (
        <Loading what="saved insights" />
      ) : null}
    </section>
  );
}
