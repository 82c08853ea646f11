// The deletion queue: every kind of queued event deletion, pending, done or cancelled — a person's
// events and time ranges (deletions, scrubs, retention runs) — each pending one with Cancel.
import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { DeletionTask, EventDeletion, Page } from '../api/types.ts';
import { DeletionTable, EventDeletionTable } from '../components/deletion-list.tsx';
import { ErrorMessage, Loading } from '../components/feedback.tsx';
import { Pager, PAGE_SIZE } from '../components/pager.tsx';
import { useLoad } from '../components/use-load.ts';
import { plural } from '../components/values.tsx';
import type { ProjectContext } from '../workspace.ts';

export function DeletionsScreen({ context }: { context: ProjectContext }) {
  const projectId = context.project.id;
  const [status, setStatus] = useState('all');
  const [offset, setOffset] = useState(0);
  const [rangeOffset, setRangeOffset] = useState(0);
  const tasks = useLoad(
    () =>
      api<Page<DeletionTask>>(`/api/projects/${projectId}/persons/deletion_status/`, {
        query: { status, limit: PAGE_SIZE, offset },
      }),
    [projectId, status, offset],
  );
  const ranges = useLoad(
    () =>
      api<Page<EventDeletion>>(`/api/projects/${projectId}/event_deletions/`, {
        query: { status, limit: PAGE_SIZE, offset: rangeOffset },
      }),
    [projectId, status, rangeOffset],
  );
  const cancelPersonTask = async (id: number) => {
    await api(`/api/projects/${projectId}/persons/deletion_status/${id}/`, { method: 'DELETE' });
    tasks.reload();
  };
  const cancelRangeTask = async (id: number) => {
    await api(`/api/projects/${projectId}/event_deletions/${id}/`, { method: 'DELETE' });
    ranges.reload();
  };
  return (
    <>
      <h1 tabIndex={-1}>Deletion queue</h1>
      <p class="muted">
        Queued deletions run in one batch (Sundays 05:00 UTC unless configured otherwise); a pending one can be
        cancelled until then.
      </p>
      <div class="field-inline">
        <label for="deletion-status">Status</label>
        <select
          id="deletion-status"
          value={status}
          onChange={(event) => {
            setStatus(event.currentTarget.value);
            setOffset(0);
            setRangeOffset(0);
          }}
        >
          <option value="all">Pending and done</option>
          <option value="pending">Pending</option>
          <option value="completed">Done</option>
          <option value="cancelled">Cancelled</option>
        </select>
      </div>
      <h2>Persons’ events</h2>
      <ErrorMessage error={tasks.error} />
      {tasks.data ? (
        tasks.data.count === 0 ? (
          <p class="muted">No queued deletions of persons’ events.</p>
        ) : (
          <>
            <p role="status">{plural(tasks.data.count, 'queued deletion')}</p>
            <DeletionTable
              tasks={tasks.data.results}
              caption="Deletions of persons’ events, newest first"
              onCancel={cancelPersonTask}
            />
            <Pager label="Deletions" count={tasks.data.count} offset={offset} onOffset={setOffset} />
          </>
        )
      ) : tasks.loading ? (
        <Loading what="the deletion queue" />
      ) : null}
      <h2>Events by time range and retention</h2>
      <ErrorMessage error={ranges.error} />
      {ranges.data ? (
        ranges.data.count === 0 ? (
          <p class="muted">No queued deletions of events by time range.</p>
        ) : (
          <>
            <p role="status">{plural(ranges.data.count, 'event deletion')}</p>
            <EventDeletionTable
              tasks={ranges.data.results}
              caption="Event deletions and scrubs, newest first"
              onCancel={cancelRangeTask}
            />
            <Pager label="Event deletions" count={ranges.data.count} offset={rangeOffset} onOffset={setRangeOffset} />
          </>
        )
      ) : ranges.loading ? (
        <Loading what="the event deletions" />
      ) : null}
    </>
  );
}
